"""One rank of ``studio parallel`` (``python -m studio.engine.parallel.rank``): joins the process group, trains
every configuration of the plan in turn (the same data order and initial weights in each), and sends what it
measured to rank 0, which prints JSON lines on stdout: ``progress`` lines, then one ``result``.

A rank leaves by itself when its parent (the launcher) is gone (a watchdog thread), so no rank outlives a
cancelled or killed job. ``STUDIO_TEST_PARALLEL_KILL=RANK:MODE:STEP`` (tests only) makes rank RANK kill itself
with SIGKILL at step STEP of mode MODE: a rank dying mid-run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import timedelta
from typing import Any

from studio.core.contracts.parallel import RankMemory
from studio.engine.jobs.rank_group import die, emit, kill_point, watch_parent
from studio.engine.parallel.timeline import Recorder

KILL_ENV = "STUDIO_TEST_PARALLEL_KILL"


def _kill_point(rank: int) -> tuple[str, int] | None:
    """Tests only: the (mode, step) where this rank must die, from ``KILL_ENV`` = ``RANK:MODE:STEP``."""
    where = kill_point(KILL_ENV, rank)
    mode, sep, step = (where or "").partition(":")
    return (mode, int(step)) if sep and step.isdigit() else None


def load_data(dataset: str, seed: int, device: Any) -> tuple[Any, Any]:
    """The dataset's training images flattened to floats (standardised) and their labels, on ``device``."""
    from studio.core.datasets.catalog import DATASETS

    data = DATASETS.build(dataset, name=dataset, seed=seed)
    x = data.x_train.flatten(1).float()
    if data.is_image:
        x = x / 255.0
    x = (x - x.mean()) / x.std().clamp_min(1e-8)
    return x.to(device), data.y_train.long().to(device)


def _bytes(tensors: Any) -> int:
    return int(sum(t.numel() * t.element_size() for t in tensors))


def _memory(rank: int, mode: Any, cuda: bool) -> RankMemory:
    import torch

    params = list(mode.module.parameters())
    state = [v for s in mode.optimizer.state.values() for v in s.values() if torch.is_tensor(v)]
    memory: RankMemory = {"rank": rank, "parameters": _bytes(params),
                          "gradients": _bytes(p.grad for p in params if p.grad is not None),
                          "optimizer": _bytes(state), "activations": int(mode.meter.step_peak), "layers": mode.layers}
    memory["device_peak"] = int(torch.cuda.max_memory_allocated()) if cuda else None
    return memory


def run_config(mode_name: str, m: int, spec: dict[str, Any], rank: int, world: int, x: Any, y: Any,
               device: Any, index: int, total: int) -> dict[str, Any] | None:
    """Train one configuration; rank 0 returns its row's measurements (``launch`` finishes the row)."""
    import torch
    import torch.distributed as dist

    from studio.engine.parallel.modes import build_mode
    from studio.engine.parallel.network import build_mlp, stage_modules

    req = spec["request"]
    steps, warmup, timeline_steps = req["steps"], req["warmup_steps"], req["timeline_steps"]
    batch = req["batch_size"]
    sizes, stage_layers = spec["sizes"], spec["stage_layers"]
    cuda = device.type == "cuda"
    net = build_mlp(x.shape[1], req["widths"], spec["classes"], req["seed"]).to(device)
    stages = stage_modules(net, sizes)
    rec = Recorder(rank, torch.cuda.synchronize if cuda else None)
    mode = build_mode(mode_name, m, net, stages, stage_layers, rank, world, req["lr"], rec, device)
    gen = torch.Generator().manual_seed(req["seed"] + 1)  # the same global batches in every mode
    local = batch // world if mode_name == "ddp" else batch
    kill = _kill_point(rank)
    losses: list[float | None] = []
    origin = start = end = 0.0
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    label = mode_name if mode_name not in ("pipeline-gpipe", "pipeline-1f1b") else f"{mode_name} M={m}"
    if rank == 0:
        emit({"type": "progress", "config": index, "configs": total, "mode": mode_name, "microbatches": m,
               "label": label, "step": 0, "steps": steps})
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(y), (batch,), generator=gen)
        if mode_name == "ddp":
            idx = idx[rank * local:(rank + 1) * local]
        xb, yb = x[idx], y[idx]
        if step == warmup + 1:  # the timed steps begin: every rank together, on one clock
            sync()
            dist.barrier()
            origin = start = time.perf_counter()
            mode.meter.step_peak = 0  # the timed steps' peak, not the warm-up's
            rec.on = True
        if step == warmup + timeline_steps + 1:
            rec.on = False
        if kill is not None and kill == (mode_name, step):
            die()
        rec.step = step
        if mode.active:
            losses.append(mode.step(xb, yb))
        if rank == 0 and (step % 10 == 0 or step == steps):
            emit({"type": "progress", "config": index, "configs": total, "mode": mode_name, "microbatches": m,
                   "label": label, "step": step, "steps": steps})
    sync()
    dist.barrier()
    end = time.perf_counter()
    mine = {"rank": rank, "active": mode.active, "losses": losses, "raw": rec.raw, "origin": origin,
            "cpu_share": rec.cpu_share,
            "memory": _memory(rank, mode, cuda) if mode.active else None}
    gathered: list[Any] = [None] * world if rank == 0 else []
    dist.gather_object(mine, gathered if rank == 0 else None, dst=0)
    mode.close()
    if rank != 0:
        return None
    # the origin: the first rank out of the barrier (one clock: the stamps of every rank compare directly)
    return {"mode": mode_name, "microbatches": m, "origin": min(r["origin"] for r in gathered), "seconds": end - start,
            "timed_steps": steps - warmup, "ranks": gathered}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="one rank of `studio parallel` (internal)")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--spec", required=True, help="JSON: the request, the plan, the split")
    a = p.parse_args(argv)
    watch_parent(os.getppid())
    import torch
    import torch.distributed as dist

    spec = json.loads(a.spec)
    torch.set_num_threads(1)  # one core per rank (and for the single process): a device each
    cuda = spec["request"]["device"] == "cuda"
    if cuda:
        device = torch.device("cuda", a.rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=a.rank,
                            world_size=a.world, timeout=timedelta(seconds=120))
    x, y = load_data(spec["request"]["dataset"], spec["request"]["seed"], device)
    plan = spec["plan"]
    rows = []
    for i, (mode_name, m) in enumerate(plan):
        row = run_config(mode_name, m, spec, a.rank, a.world, x, y, device, i, len(plan))
        if row is not None:
            rows.append(row)
            emit({"type": "row", "row": row})  # each configuration as soon as it is measured (the page draws it)
    dist.barrier()
    dist.destroy_process_group()
    if a.rank == 0:
        emit({"type": "result", "rows": rows})


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
