"""``studio parallel``'s driver: check the request (one sentence per problem, before any process starts), run
the ranks (``jobs/rank_group.RankGroup``, as the all-reduce and DLRM pages' ranks: ``python -m`` processes, so it
also runs from a daemonic background job; a rank that dies stops the others and is named), and build the
:class:`ParallelResult` from what rank 0 gathered."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from studio.core.contracts.parallel import (
    MODES,
    PIPELINE_MODES,
    ModeResult,
    ParallelRequest,
    ParallelResult,
)
from studio.core.errors import ConfigError, RunFailed
from studio.core.estimates.footprint import check_mlp
from studio.engine.jobs.rank_group import RankGroup
from studio.engine.parallel.network import block_costs, layer_names
from studio.engine.parallel.split import balanced_split, bubble_theory
from studio.engine.parallel.timeline import Recorder, busy_shares, with_idle

Report = Callable[[float, str], None]
# the largest |loss − single-process loss| allowed at any step: float32 sums in another order (DDP's average of
# two half-batch means, the pipeline's mean of micro-batch means) drift by ~1e-6 over tens of steps
LOSS_TOLERANCE = 1e-4
STAGED = ("model", *PIPELINE_MODES)


def plan_of(request: ParallelRequest) -> tuple[list[tuple[str, int]], list[str]]:
    """The configurations to train, in order ((mode, micro-batches)); the single process always first (the
    reference curve and speed), and notes on what was left out."""
    plan: list[tuple[str, int]] = [("single", 1)]
    notes: list[str] = []
    for mode in request.modes:
        if mode in PIPELINE_MODES:
            for m in request.microbatches:
                if mode == "pipeline-1f1b" and m < request.ranks:
                    notes.append(f"1F1B at M={m} left out: its schedule needs at least as many micro-batches as "
                                 f"stages ({request.ranks})")
                    continue
                plan.append((mode, m))
        elif mode != "single":
            plan.append((mode, 1))
    return plan, notes


def validate(request: ParallelRequest) -> tuple[int, int]:
    """Every check that needs no process; returns the dataset's (input size, classes). Raises ``ConfigError``."""
    from studio.core.datasets.catalog import DATASETS

    unknown = [m for m in request.modes if m not in MODES]
    if unknown:
        raise ConfigError(f"unknown mode {unknown[0]!r}; the modes are {', '.join(MODES)}")
    if not request.modes:
        raise ConfigError(f"no mode to run; pick some of {', '.join(MODES)}")
    if request.ranks < 1:
        raise ConfigError(f"ranks must be at least 1 (not {request.ranks})")
    if request.ranks > 16:
        raise ConfigError(f"{request.ranks} ranks is more than this lab starts (at most 16 processes)")
    if request.device not in ("cpu", "cuda"):
        raise ConfigError(f"device must be cpu or cuda (not {request.device!r})")
    if not request.widths or any(w < 1 for w in request.widths):
        raise ConfigError("widths are the hidden layers' sizes, each at least 1, e.g. 512,512,512")
    if request.batch_size < 1:
        raise ConfigError(f"the batch size must be at least 1 (not {request.batch_size})")
    if not (math.isfinite(request.lr) and request.lr > 0):  # NaN passes `<= 0` and trains NaN curves
        raise ConfigError(f"the learning rate must be a positive number (not {request.lr})")
    if request.warmup_steps < 0 or request.steps <= request.warmup_steps:
        raise ConfigError(f"{request.steps} steps leave none to time after {request.warmup_steps} warm-up steps; "
                          "use more steps")
    if not 1 <= request.timeline_steps <= request.steps - request.warmup_steps:
        raise ConfigError(f"the timeline keeps 1 to {request.steps - request.warmup_steps} of the timed steps "
                          f"(not {request.timeline_steps})")
    if "ddp" in request.modes and request.batch_size % request.ranks:
        raise ConfigError(f"the global batch {request.batch_size} does not split evenly over {request.ranks} DDP "
                          "ranks; pick a batch size they divide")
    if any(m in PIPELINE_MODES for m in request.modes):
        if not request.microbatches or any(m < 1 for m in request.microbatches):
            raise ConfigError("micro-batch counts are whole numbers from 1, e.g. 1,2,4,8")
        for m in request.microbatches:
            if m > request.batch_size:
                raise ConfigError(f"{m} micro-batches but the batch has only {request.batch_size} samples; use at "
                                  f"most {request.batch_size} micro-batches or a larger batch")
            if request.batch_size % m:
                raise ConfigError(f"the batch of {request.batch_size} does not split into {m} equal micro-batches; "
                                  "pick a micro-batch count that divides it")
    if request.dataset not in DATASETS:
        raise ConfigError(f"no dataset named {request.dataset!r}; `studio list datasets` names them")
    if "text" in DATASETS.get(request.dataset).tags:
        raise ConfigError(f"dataset {request.dataset!r} is text; the lab's MLP trains on images or points")
    if request.device == "cuda":
        count = _cuda_count()
        if count < request.ranks:
            raise ConfigError(f"{request.ranks} ranks need as many GPUs (one each); this machine has {count}")
    shape = _dataset_shape(request)
    # before anything builds the MLP (the split below does): DDP holds it whole in every rank, the others once
    check_mlp(shape[0], request.widths, shape[1], request.batch_size, request.ranks if "ddp" in request.modes else 1,
              request.device, what="the lab's MLP")
    if any(m in STAGED for m in request.modes):
        _check_split(request, shape)
    return shape


def _dataset_shape(request: ParallelRequest) -> tuple[int, int]:
    from studio.core.datasets.catalog import DATASETS

    data = DATASETS.build(request.dataset, name=request.dataset, seed=request.seed)
    features = 1
    for d in data.input_shape:
        features *= int(d)
    return features, data.num_classes


def _check_split(request: ParallelRequest, shape: tuple[int, int]) -> None:
    """The network must be a chain of layers (``split.chain_blocks``) with a layer for every stage."""
    from studio.engine.parallel.network import build_mlp
    from studio.engine.parallel.split import chain_blocks

    chain_blocks(build_mlp(shape[0], request.widths, shape[1], request.seed), "mlp")
    balanced_split(block_costs(shape[0], request.widths, shape[1]), request.ranks)


def stages_for(request: ParallelRequest, shape: tuple[int, int]) -> tuple[list[int], list[list[str]]]:
    """Blocks per stage (about equal compute) and the layer names of each stage."""
    costs = block_costs(shape[0], request.widths, shape[1])
    parts = min(request.ranks, len(costs))
    sizes = balanced_split(costs, parts) if parts == request.ranks else [len(costs)]
    names = layer_names(request.widths)
    out, i = [], 0
    for size in sizes:
        out.append(names[i:i + size])
        i += size
    return sizes, out


def _cuda_count() -> int:
    """GPUs, asked in a child process so this one never initialises CUDA."""
    try:
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
                             capture_output=True, text=True, timeout=120)
        return int(out.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return 0


def run_parallel(request: ParallelRequest, progress: Report | None = None,
                 emit: Callable[[ParallelResult], None] | None = None) -> ParallelResult:
    """Validate ``request``, train every configuration on ``request.ranks`` rank processes, return the result.
    ``emit(partial)``: after each configuration, the result of those measured so far (``pending``: the others),
    so a view shows single and DDP while the pipelines still run."""
    shape = validate(request)
    plan, notes = plan_of(request)
    sizes, stage_layers = stages_for(request, shape)
    spec = {"request": asdict(request), "plan": plan, "sizes": sizes, "stage_layers": stage_layers,
            "classes": shape[1]}
    if progress:
        progress(0.0, f"starting {request.ranks} rank process{'es' if request.ranks != 1 else ''}")
    ranks = RankGroup("studio.engine.parallel.rank", request.ranks, spec, "parallel rank")
    state: dict[str, Any] = {"label": "start-up", "step": 0}
    raw: list[dict[str, Any]] = []
    try:
        for msg in ranks.messages(lambda: f"{state['label']} (step {state['step']})"
                                  if state["step"] else state["label"]):
            if msg.get("type") == "progress":
                state.update(label=msg["label"], step=msg["step"])
                if progress:
                    progress((msg["config"] + msg["step"] / msg["steps"]) / msg["configs"],
                             f"{msg['label']}: step {msg['step']}/{msg['steps']}")
            elif msg.get("type") == "row":
                raw.append(msg["row"])
                if emit:
                    emit({**assemble(request, raw, stage_layers, notes), "pending": list(plan[len(raw):])})
            elif msg.get("type") == "result":
                raw = msg["rows"]
            elif progress:  # a heartbeat: the same report again (a Progress raises Cancelled here once asked)
                progress(getattr(progress, "fraction", 0.0), getattr(progress, "text", "") or state["label"])
    finally:
        ranks.stop()
    if not raw:
        raise RunFailed("the parallel run ended without a result from rank 0")
    return assemble(request, raw, stage_layers, notes)


def assemble(request: ParallelRequest, raw: list[dict[str, Any]], stage_layers: list[list[str]],
             notes: list[str]) -> ParallelResult:
    """The result from rank 0's gathered measurements: the rows the request asked for, with the single process's
    losses as the reference of every row's gap."""
    rows = [_row(request, r) for r in raw]
    reference = rows[0]["losses"]
    for row in rows:
        row["max_loss_gap"] = max((abs(a[1] - b[1]) for a, b in zip(row["losses"], reference, strict=True)),
                                  default=0.0)
    if "single" not in request.modes:
        rows = rows[1:]
    return {"rows": rows, "stages": stage_layers, "device": request.device, "cores": os.cpu_count() or 1,
            "dataset": request.dataset, "batch_size": request.batch_size, "steps": request.steps,
            "ranks": request.ranks, "loss_tolerance": LOSS_TOLERANCE, "notes": notes,
            "equal_curves": all(r["max_loss_gap"] <= LOSS_TOLERANCE for r in rows)}


def _row(request: ParallelRequest, raw: dict[str, Any]) -> ModeResult:
    mode, m = raw["mode"], int(raw["microbatches"])
    ranks = [r for r in raw["ranks"] if r["active"]]
    lanes = [r["rank"] for r in ranks]
    origin = raw["origin"]
    intervals = [interval for r in ranks for interval in Recorder.from_raw(r["rank"], r["raw"], origin)]
    end = max((i["end"] for i in intervals), default=0.0)
    timeline = with_idle(intervals, lanes, end)
    busy = busy_shares(intervals, lanes, end)
    per_step: list[float] = []
    if mode == "ddp":  # each rank's loss is its half's mean: the global batch's mean is their mean
        per_step = [sum(float(r["losses"][i]) for r in ranks) / len(ranks) for i in range(request.steps)]
    else:
        holder = next(r for r in reversed(ranks) if r["losses"] and r["losses"][0] is not None)
        per_step = [float(v) for v in holder["losses"]]
    losses = [[float(request.batch_size * (i + 1)), v] for i, v in enumerate(per_step)]
    seconds = float(raw["seconds"])
    timed = int(raw["timed_steps"])
    staged = mode in STAGED
    p = len(lanes)
    return {"mode": mode, "ranks": p, "microbatches": m,
            "samples_per_s": request.batch_size * timed / seconds if seconds > 0 else 0.0,
            "step_ms": 1000 * seconds / timed if timed else 0.0, "losses": losses,
            "final_loss": per_step[-1] if per_step else float("nan"), "max_loss_gap": 0.0, "timeline": timeline,
            "busy": busy, "bubble": (1 - sum(busy) / len(busy)) if staged and busy else None,
            "bubble_theory": bubble_theory(p, m) if staged else None,
            "memory": sorted((r["memory"] for r in ranks), key=lambda mem: mem["rank"]),
            "cpu_share": [r["cpu_share"] for r in ranks]}
