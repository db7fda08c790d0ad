"""One rank of ``studio dlrm`` (``python -m studio.engine.dlrm.rank``): for each seed, rank 0 first trains the
model in this one process (every table, the whole batch: the reference), then every rank trains it hybrid-parallel
(its own tables, its share of each batch) on the same batches, and sends rank 0 what it measured: losses,
intervals, bytes exchanged, memory. Rank 0 prints JSON lines on stdout: ``progress`` lines, then one ``result``.

``STUDIO_TEST_DLRM_KILL=RANK:STEP`` (tests only) makes rank RANK kill itself with SIGKILL at hybrid step STEP of
the first seed."""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from datetime import timedelta
from typing import Any

from studio.engine.allreduce.traffic import Spans
from studio.engine.dlrm.data import ClickData
from studio.engine.dlrm.model import build_mlps, build_table, gradient_bytes, head, tensor_bytes
from studio.engine.dlrm.train import HybridRank, SingleProcess, optimizer, optimizer_bytes, rss_bytes
from studio.engine.jobs.rank_group import die, emit, kill_point, watch_parent

# a rank may wait this long for its peers (rank 0's one-process reference, the other ranks' turns); a rank that
# dies is found by the launcher at once (it stops them all), not by this timeout
WAIT_S = 6 * 3600
KILL_ENV = "STUDIO_TEST_DLRM_KILL"


class Progress:
    """Rank 0's progress lines: one per 5 steps of each phase (2 phases per seed)."""

    def __init__(self, req: dict[str, Any], on: bool) -> None:
        self.on, self.steps, self.total = on, req["steps"], 2 * req["repeats"]

    def __call__(self, phase: int, label: str, step: int) -> None:
        if self.on and (step % 5 == 0 or step == self.steps or step == 0):
            emit({"type": "progress", "done": phase + step / self.steps, "total": self.total, "label": label,
                  "step": step, "steps": self.steps})


def warm_up(req: dict[str, Any], device: Any) -> None:
    """One step of a tiny model first: torch's kernels and libraries load on their first use (~180 MB of this
    process), which would otherwise count as the first model's memory."""
    import torch

    bottom, top = (m.to(device) for m in build_mlps(req["dense"], req["bottom"], req["top"], req["dim"],
                                                      req["tables"], 0))
    tables = [build_table(t, 16, req["dim"], 0).to(device) for t in range(req["tables"])]
    idx = torch.zeros(4, dtype=torch.long, device=device)
    vectors = torch.stack([e(idx) for e in tables], dim=1)
    loss = head(bottom, top, torch.zeros(4, req["dense"], device=device), vectors, torch.zeros(4, device=device))
    loss.backward()
    optimizer([*bottom.parameters(), *top.parameters(), *(e.weight for e in tables)], 0.01).step()


def train_single(req: dict[str, Any], seed: int, data: ClickData, device: Any, keep: bool,
                 progress: Progress, phase: int) -> dict[str, Any]:
    """The reference run in this process; ``keep``: record its timeline and memory."""
    steps, warmup, shown = req["steps"], req["warmup_steps"], req["timeline_steps"]
    spans = Spans(-1)
    before = rss_bytes()
    model = SingleProcess(req, seed, device, spans)
    grown = rss_bytes() - before  # what building the model took (tables touched as they are initialised)
    losses, times, origin = [], [], 0.0
    progress(phase, f"seed {seed}: one process", 0)
    for step in range(1, steps + 1):
        if keep and step == warmup + 1:
            origin, spans.on = time.perf_counter(), True
        if step == warmup + shown + 1:
            spans.on = False
        model.step_no = step
        start = time.perf_counter()
        with spans.span("data", step):
            batch = data.batch(step, req["batch_size"])
        losses.append(model.step(*batch))
        if step > warmup:
            times.append(time.perf_counter() - start)
        progress(phase, f"seed {seed}: one process", step)
    memory = {"rank": -1, "tables": list(model.tables), "table_bytes": tensor_bytes(model.table_params),
              "mlp_bytes": tensor_bytes(model.mlp_params), "optimizer_bytes": optimizer_bytes(model.opt),
              "gradient_bytes": gradient_bytes(model.mlp_params + model.table_params), "exchange_bytes": 0,
              "rss_growth": grown}
    del model
    gc.collect()
    return {"losses": losses, "step_s": statistics.median(times), "memory": memory,
            "timeline": [{**i, "rank": 0} for i in spans.intervals(origin)] if keep else []}


def train_hybrid(req: dict[str, Any], seed: int, data: ClickData, rank: int, world: int, device: Any, keep: bool,
                 kill: str | None, progress: Progress, phase: int) -> dict[str, Any]:
    import torch.distributed as dist

    steps, warmup, shown = req["steps"], req["warmup_steps"], req["timeline_steps"]
    spans = Spans(rank)
    before = rss_bytes()
    model = HybridRank(req, seed, rank, world, dist.group.WORLD, device, spans)
    grown = rss_bytes() - before
    losses, times, origin = [], [], 0.0
    progress(phase, f"seed {seed}: hybrid on {world} ranks", 0)
    for step in range(1, steps + 1):
        if keep and step == warmup + 1:  # the timeline's steps begin: every rank together, on one clock
            dist.barrier()
            origin, spans.on = time.perf_counter(), True
        if step == warmup + shown + 1:
            spans.on = False
        if keep and kill == str(step):
            die()
        start = time.perf_counter()
        with spans.span("data", step):  # every rank draws the whole batch (the indices of its tables' lookups)
            batch = data.batch(step, req["batch_size"])
        losses.append(model.step(*batch, step))
        if step > warmup:
            times.append(time.perf_counter() - start)
        progress(phase, f"seed {seed}: hybrid on {world} ranks", step)
    memory = {"rank": rank, "tables": sorted(model.tables), "table_bytes": tensor_bytes(
              e.weight for e in model.tables.values()), "mlp_bytes": tensor_bytes(model.mlp_params),
              "optimizer_bytes": optimizer_bytes(model.opt),
              "gradient_bytes": gradient_bytes(model.mlp_params + model.table_params),
              "exchange_bytes": _exchanged(model),
              "rss_growth": grown}
    out = {"losses": losses, "step_s": statistics.median(times), "memory": memory, "origin": origin,
           "raw": spans.raw if keep else [], "log": model.meter.log, "allreduce": model.allreduced}
    del model
    gc.collect()
    return out


def _exchanged(model: HybridRank) -> int:
    """Bytes of the buffers of one step's two all-to-alls on this rank: what it sends and receives, forward (the
    vectors) and backward (their gradients)."""
    return 2 * (sum(model.recv) + sum(model.send)) * 4


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="one rank of `studio dlrm` (internal)")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--spec", required=True, help="JSON: the request")
    a = parser.parse_args(argv)
    watch_parent(os.getppid())
    import torch
    import torch.distributed as dist

    req = json.loads(a.spec)["request"]
    torch.set_num_threads(1)
    torch.sparse.check_sparse_tensor_invariants.disable()  # said, so Adagrad's sparse step does not warn
    cuda = req["device"] == "cuda"
    device = torch.device("cuda", a.rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=a.rank,
                            world_size=a.world, timeout=timedelta(seconds=WAIT_S))
    kill = kill_point(KILL_ENV, a.rank)
    progress = Progress(req, a.rank == 0)
    warm_up(req, device)
    runs = []
    for i in range(req["repeats"]):
        seed = req["seed"] + i
        data = ClickData(seed, req["tables"], req["rows"], req["dense"], device)
        single = train_single(req, seed, data, device, i == 0, progress, 2 * i) if a.rank == 0 else None
        dist.barrier()
        hybrid = train_hybrid(req, seed, data, a.rank, a.world, device, i == 0, kill, progress, 2 * i + 1)
        gathered: list[Any] = [None] * a.world if a.rank == 0 else []
        dist.gather_object(hybrid, gathered if a.rank == 0 else None, dst=0)
        if a.rank == 0:
            floors = data.floors() if i == 0 else None
            runs.append({"seed": seed, "single": single, "ranks": gathered, "floors": floors})
    dist.barrier()
    dist.destroy_process_group()
    if a.rank == 0:
        emit({"type": "result", "runs": runs})


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
