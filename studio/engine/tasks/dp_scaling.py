"""Data-parallel scaling measured on this machine: the same training at 1, 2, … processes (DDP, gloo on the
CPU, NCCL on GPUs) and, where CUDA exists, single-process ``nn.DataParallel`` beside it.

Each configuration trains the config's model on its data for ``steps`` steps at the same GLOBAL batch
(each of N ranks takes batch/N, as ``studio train`` does), so every configuration takes the same path and
the steps to a target accuracy match; what changes is the time. Per step we time, on rank 0:

- ``step_ms``: a normal DDP step (forward, backward with the gradient all-reduce, optimizer step), and
  ``fwd_bwd_ms``, its forward and backward alone;
- ``compute_ms``: the same forward and backward under ``DDP.no_sync()`` on the same batch (no all-reduce),
  on every ``probe_every``-th step, before the real step (its gradients are thrown away);
- ``allreduce_ms`` = ``fwd_bwd_ms`` − ``compute_ms``: the communication DDP could not hide behind the
  backward pass (0 for one process).

Throughput is global samples per second of the timed steps; efficiency is throughput(N) / (N × throughput(1)).
Validation accuracy is measured every ``eval_every`` steps (not timed); ``steps_to_target`` is the first
step where it reaches ``target``. Ranks are separate ``python -m studio.engine.dp_scaling`` processes (so the
measurement also runs from a daemonic background job) that join a process group over TCP on localhost;
rank 0 prints JSON lines (progress, then the result) on stdout.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from studio.core.config import RunConfig
from studio.core.contracts.scaling import RankOptions, ScaleRequest, ScaleResult, ScaleRow
from studio.core.errors import ConfigError, RunFailed
from studio.core.host import threads as thread_policy
from studio.core.host.procs import free_port
from studio.core.numbers.ints import split_ints
from studio.core.optim import OPTIMIZERS
from studio.engine.jobs import child_stderr

Report = Callable[[float, str], None]
MODES = ("ddp", "dp")  # dp: single-process nn.DataParallel over the GPUs (CUDA only)


def _timed(fn: Callable[[], None], sync: Callable[[], None]) -> float:
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    return (time.perf_counter() - t0) * 1000


def rank_main(rank: int, world: int, port: int, cfg: RunConfig, options: RankOptions) -> ScaleRow | None:
    """One rank of one configuration; rank 0 returns the measurement."""
    import torch
    import torch.distributed as dist
    from torch import nn

    from studio.core.maths.objectives import task_for
    from studio.core.runs.lineage import load_run_data
    from studio.engine.training.worker import build_model, build_optimizer, device_splits

    mode, device_kind = options["mode"], options["device"]
    thread_policy.apply(thread_policy.ThreadPlan(max(1, int(options.get("threads") or 1)),
                                                 options.get("wait_policy", "")))
    torch.manual_seed(cfg.train.seed)
    if device_kind == "cuda":
        device = torch.device("cuda", rank if mode == "ddp" else 0)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if world > 1 and mode == "ddp":
        dist.init_process_group("nccl" if device_kind == "cuda" else "gloo", init_method=f"tcp://127.0.0.1:{port}",
                                rank=rank, world_size=world)
    data = load_run_data(cfg)
    train, val, _ = device_splits(data, cfg, device)
    net: nn.Module = build_model(cfg, data, device)
    if mode == "ddp" and world > 1:
        model: nn.Module = nn.parallel.DistributedDataParallel(net)
    elif mode == "dp":
        model = nn.DataParallel(net, device_ids=list(range(world)))
    else:
        model = net
    batch = cfg.train.batch_size
    opt = build_optimizer(cfg, net, batch, None, "")  # the config's optimizer, as `studio train` builds it
    task = task_for(data.meta, cfg.train.label_smoothing)  # the dataset's loss (and accuracy, if it has one)
    needs_closure = getattr(opt, "requires_closure", False)
    loss_fn = task.loss
    local = batch // world if mode == "ddp" else batch
    steps, probe_every, eval_every = options["steps"], options["probe_every"], options["eval_every"]
    target = options["target"]
    gen = torch.Generator().manual_seed(cfg.train.seed)
    sync = torch.cuda.synchronize if device_kind == "cuda" else (lambda: None)
    reduces = world > 1 and mode == "ddp"
    step_ms, fwd_bwd_ms, compute_ms = [], [], []
    curve: list[list[float | None]] = []  # [step, accuracy]
    val_loss: float | None = None
    steps_to_target = None
    warmup = min(3, steps // 4)

    def evaluate() -> tuple[float, float | None]:
        """(mean validation loss, accuracy; None for a task without one, e.g. regression)."""
        model.eval()
        with torch.inference_mode():
            n = min(len(val), 2000)
            x, y = val.normalise(val.x[:n].to(device)), val.y[:n].to(device)
            total, correct, count = (float(v) for v in task.sums(net(x), y))
        model.train()
        count = max(count, 1.0)
        return total / count, correct / count if task.has_accuracy else None

    model.train()
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(train), (batch,), generator=gen)  # every rank draws the same global batch
        mine = idx[rank * local:(rank + 1) * local] if mode == "ddp" else idx
        x, y = train.normalise(train.x[mine].to(device)), train.y[mine].to(device)
        timed = step > warmup
        if reduces and timed and step % probe_every == 0:  # the same work without the all-reduce
            opt.zero_grad(set_to_none=True)
            sync()
            t0 = time.perf_counter()
            with model.no_sync():  # type: ignore[operator]
                loss_fn(model(x), y).backward()
            sync()
            compute_ms.append((time.perf_counter() - t0) * 1000)
        opt.zero_grad(set_to_none=True)
        sync()
        t0 = time.perf_counter()
        loss_fn(model(x), y).backward()
        sync()
        t1 = time.perf_counter()
        if needs_closure:  # Newton's step re-evaluates the loss
            opt.step(functools.partial(lambda xb, yb: loss_fn(model(xb), yb), x, y))  # type: ignore[arg-type]
        else:
            opt.step()
        sync()
        if timed:
            step_ms.append((time.perf_counter() - t0) * 1000)
            fwd_bwd_ms.append((t1 - t0) * 1000)
        if step % eval_every == 0 or step == steps:
            if rank == 0:
                val_loss, acc = evaluate()
                curve.append([step, acc])
                if steps_to_target is None and target and acc is not None and acc >= target:
                    steps_to_target = step
                print(json.dumps({"type": "progress", "step": step, "steps": steps, "val_acc": acc,
                                  "val_loss": val_loss}), flush=True)
    if world > 1 and mode == "ddp":
        dist.barrier()
        dist.destroy_process_group()
    if rank != 0:
        return None

    def mean(v: list[float]) -> float:
        return sum(v) / len(v) if v else float("nan")

    total_ms = sum(step_ms)
    with_sync = mean(fwd_bwd_ms)
    compute = mean(compute_ms) if reduces else with_sync  # one process: nothing to all-reduce
    row: ScaleRow = {"mode": mode, "processes": world, "device": device_kind, "threads": torch.get_num_threads(),
            "global_batch": batch, "local_batch": local, "steps": steps, "timed_steps": len(step_ms),
            "step_ms": mean(step_ms), "fwd_bwd_ms": with_sync, "compute_ms": compute,
            "allreduce_ms": max(0.0, with_sync - compute), "optimizer_ms": mean(step_ms) - with_sync,
            "samples_per_s": batch * len(step_ms) / (total_ms / 1000) if total_ms else 0.0,
            "val_acc": curve[-1][1] if curve else None, "val_loss": val_loss, "curve": curve, "target": target,
            "steps_to_target": steps_to_target, "optimizer": cfg.optimizer.name,
            "omp_wait_policy": options.get("wait_policy", "")}
    return row


def _spawn_rank(rank: int, world: int, port: int, config_path: Path, options: RankOptions) -> subprocess.Popen:
    plan = thread_policy.ThreadPlan(int(options.get("threads") or 1), options.get("wait_policy", ""))
    env = dict(os.environ, OMP_NUM_THREADS=str(plan.threads), **plan.env())  # torch reads both at import
    cmd = [sys.executable, "-m", "studio.engine.dp_scaling", "--rank", str(rank), "--world", str(world),
           "--port", str(port), "--config", str(config_path), "--options", json.dumps(options)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE if rank == 0 else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)


def measure(cfg: RunConfig, processes: int, mode: str, options: RankOptions, workdir: Path,
            progress: Report | None = None, base: float = 0.0, span: float = 1.0) -> ScaleRow:
    """Run one configuration (``processes`` ranks, or one DataParallel process over ``processes`` GPUs)."""
    config_path = workdir / "config.toml"
    cfg.save(config_path)
    opts: RankOptions = {**options, "mode": mode}
    world_procs = processes if mode == "ddp" else 1
    port = free_port()
    procs = [_spawn_rank(r, processes, port, config_path, opts) for r in range(world_procs)]
    result: ScaleRow | None = None
    try:
        assert procs[0].stdout is not None
        for line in procs[0].stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("type") == "progress" and progress:
                progress(base + span * msg["step"] / msg["steps"],
                         f"{processes} × {mode.upper()}: step {msg['step']}/{msg['steps']}")
            elif msg.get("type") == "result":
                result = msg["result"]
        errs = [p.communicate(timeout=120)[1] for p in procs]
    except BaseException:
        for p in procs:
            p.kill()
        raise
    if result is None or any(p.returncode for p in procs):
        failed = [e for p, e in zip(procs, errs, strict=True) if p.returncode] + list(errs)  # the failed first
        words = next((child_stderr.tail(e) for e in failed if e and e.strip()), "")
        what = f"the {processes}-process {mode.upper()} measurement failed"
        raise RunFailed(child_stderr.with_last_words(what, words) if words else f"{what}: no message")
    return result


def parse_processes(text: str) -> list[int]:
    try:
        values = split_ints(text)
    except ValueError:
        raise ConfigError(f"--processes takes whole numbers separated by commas, e.g. 1,2 (not {text!r})") from None
    if not values or any(v < 1 or v > 64 for v in values):
        raise ConfigError("--processes takes counts from 1 to 64, e.g. 1,2")
    return values


def scaling_study(cfg: RunConfig, processes: list[int], steps: int = 60, target: float = 0.75, eval_every: int = 10,
                  probe_every: int = 2, threads: int = 0, data_parallel: bool = True,
                  progress: Report | None = None) -> ScaleResult:
    """Measure every process count (and DataParallel where CUDA is present); returns ``{"rows": [...],
    "cuda", "cores", "config"}`` with each row's ``efficiency`` against linear scaling from the first DDP row.

    Each rank trains with the config's optimizer (``core/optim``, built as ``studio train`` builds it) on the loss
    of the dataset's task (``core/maths/objectives.task_for``); a task without accuracy (regression) reports
    ``val_acc`` None and reaches no target, its ``val_loss`` says how training went.

    Threads per rank come from the thread policy (``core/threads.plan``, as ``studio train``): ``threads`` > 0
    fixes them, 0 gives each rank cores ÷ processes (at least 1). On a busy CPU (other programs' load measured
    once, before the ranks start) idle OpenMP threads are told to sleep (``OMP_WAIT_POLICY=PASSIVE``): spinning
    threads on shared cores made one 2-thread process several times slower than two 1-thread processes here,
    which measures the spinning, not data parallelism.
    """
    import tempfile

    if steps < 8:
        raise ConfigError("--steps must be at least 8 (the first few are warm-up and not timed)")
    if not 0 <= target <= 1:
        raise ConfigError("--target is an accuracy from 0 to 1")
    cuda = _cuda_count()
    device = "cuda" if cfg.hardware.device.startswith("cuda") or (cfg.hardware.device == "auto" and cuda) else "cpu"
    if device == "cuda" and max(processes) > cuda:
        raise ConfigError(f"{max(processes)} processes need as many GPUs; this machine has {cuda}")
    if cfg.train.batch_size % max(processes):
        raise ConfigError(f"the global batch {cfg.train.batch_size} does not split evenly over {max(processes)} "
                          "processes; pick a batch size they divide")
    entry = OPTIMIZERS.get(cfg.optimizer.name)
    if "closure" in entry.tags and max(processes) > 1:
        raise ConfigError(f"optimizer {entry.name} runs in one process; measure --processes 1 or pick another "
                          "optimizer")
    first = thread_policy.plan(threads)  # measures what other programs use, before our ranks start
    cores = first.cores
    plan = [(n, "ddp") for n in processes]
    if device == "cuda" and data_parallel:
        plan += [(n, "dp") for n in processes if n > 1]
    rows = []
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    policies = set()
    with tempfile.TemporaryDirectory(prefix="studio-scale-") as tmp:
        for i, (n, mode) in enumerate(plan):
            threads_plan = thread_policy.plan(threads, processes=n if mode == "ddp" else 1, busy=first.busy_cores)
            wait = threads_plan.wait_policy if device == "cpu" else ""  # GPU ranks wait on the device, not OpenMP
            policies.add(wait)
            opts: RankOptions = {"steps": steps, "target": target, "eval_every": eval_every, "probe_every": probe_every,
                    "device": device, "threads": threads_plan.threads, "wait_policy": wait}
            rows.append(measure(cfg, n, mode, opts, Path(tmp), progress, i / len(plan), 1 / len(plan)))
    base = next((r for r in rows if r["mode"] == "ddp" and r["processes"] == min(processes)), rows[0])
    for r in rows:
        per_proc = base["samples_per_s"] / base["processes"]
        r["speedup"] = r["samples_per_s"] / base["samples_per_s"] if base["samples_per_s"] else None
        r["efficiency"] = r["samples_per_s"] / (per_proc * r["processes"]) if per_proc else None
        r["allreduce_share"] = r["allreduce_ms"] / r["step_ms"] if r["step_ms"] else None
    if progress:
        progress(1.0, "done")
    return {"rows": rows, "device": device, "cuda_devices": cuda, "cores": cores, "load_avg": load,
            "busy_cores": first.busy_cores, "omp_wait_policy": "PASSIVE" if "PASSIVE" in policies else
            os.environ.get("OMP_WAIT_POLICY", ""), "model": cfg.model.name, "optimizer": cfg.optimizer.name,
            "dataset": cfg.data.name, "global_batch": cfg.train.batch_size, "steps": steps, "target": target}


def run(request: ScaleRequest, progress: Report | None = None) -> ScaleResult:
    """The background task (``engine/tasks.SCALE``): the measurement of ``request.config`` at
    ``request.processes`` ("1,2")."""
    return scaling_study(RunConfig.from_dict(request.config), parse_processes(request.processes),
                         steps=request.steps, target=request.target, progress=progress)


def _cuda_count() -> int:
    """GPUs, asked in a child process so this one never initialises CUDA (ranks must, after forking nothing)."""
    try:
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
                             capture_output=True, text=True, timeout=120)
        return int(out.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="one rank of a data-parallel scaling measurement (internal)")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--options", required=True)
    a = p.parse_args(argv)
    result = rank_main(a.rank, a.world, a.port, RunConfig.load(a.config), json.loads(a.options))
    if result is not None:
        print(json.dumps({"type": "result", "result": result}), flush=True)


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
