"""``studio dlrm``'s driver: check the request (one sentence per problem, before any process starts: the limits,
the port, the memory the tables need), run the ranks (``engine/jobs/rank_group.RankGroup``; a rank that dies
stops the others and is named) and build the :class:`DlrmResult` from what rank 0 gathered."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from studio.core.contracts.dlrm import (
    DlrmRequest,
    DlrmResult,
    Interval,
    SeedRun,
    exchange_bytes,
    owners,
    table_bytes,
    validate,
)
from studio.core.errors import ConfigError, RunFailed
from studio.engine.allreduce.launch import RANK_BASE_BYTES, available_memory, port_problem
from studio.engine.allreduce.traffic import carve, with_idle
from studio.engine.jobs.rank_group import RankGroup, cuda_count

Report = Callable[[float, str], None]
# the largest |hybrid − single| loss allowed at any step: float32 sums in another order (the MLPs' gradients of
# p shares summed by an all-reduce, the mean of p means) drift by ~1e-7 over tens of steps
LOSS_TOLERANCE = 1e-5
# glibc: every allocation from 64 KiB on gets its own mapping, given back when freed (no dynamic threshold), so a
# rank's resident memory grows by what its tables take and falls when the one-process reference is deleted
RANK_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536"}


def memory_needed(request: DlrmRequest) -> int:
    """Bytes at the peak: the single process holds every table and its Adagrad accumulator, then each rank its
    share; every process its own torch."""
    tables = 2 * table_bytes(request.tables, request.rows, request.dim)
    replicated = tables * request.ranks if request.fault == "replicated-tables" else 0
    return tables + replicated + request.ranks * RANK_BASE_BYTES


def check(request: DlrmRequest) -> None:
    """Every check before any process starts; ConfigError (one sentence) on the first problem."""
    validate(request)
    if request.port:
        problem = port_problem(request.port)
        if problem:
            raise ConfigError(problem)
    need, free = memory_needed(request), available_memory()
    if free is not None and need > free:
        tables = table_bytes(request.tables, request.rows, request.dim)
        raise ConfigError(f"the tables take {tables / 2**30:.1f} GiB ({request.tables} × {request.rows:,} rows × "
                          f"{request.dim} × 4 bytes, and as much again for Adagrad's state) and the one-process "
                          f"reference holds them all; this machine has {free / 2**30:.1f} GiB free: use fewer rows "
                          "or tables")
    if request.device == "cuda":
        count = cuda_count()
        if count < request.ranks:
            raise ConfigError(f"{request.ranks} processes need as many GPUs (one each); this machine has {count}")


def run_dlrm(request: DlrmRequest, progress: Report | None = None) -> DlrmResult:
    """Check ``request``, train it in one process and hybrid-parallel on ``request.ranks`` processes (for each
    seed), return the result."""
    check(request)
    if progress:
        progress(0.0, f"starting {request.ranks} rank processes")
    group = RankGroup("studio.engine.dlrm.rank", request.ranks, {"request": asdict(request)}, "DLRM rank",
                      request.port, RANK_ENV)
    state: dict[str, Any] = {"label": "start-up", "step": 0, "fraction": 0.0, "text": "start-up"}
    raw: list[dict[str, Any]] = []
    try:
        for msg in group.messages(lambda: f"{state['label']} (step {state['step']})" if state["step"]
                                  else state["label"]):
            if msg.get("type") == "progress":
                state.update(label=msg["label"], step=msg["step"])
                state.update(fraction=msg["done"] / msg["total"], text=f"{msg['label']}: step {msg['step']}/"
                                                                        f"{msg['steps']}")
                if progress:
                    progress(state["fraction"], state["text"])
            elif msg.get("type") == "result":
                raw = msg["runs"]
            elif progress:  # a heartbeat: the same report again (a Progress raises Cancelled here once asked)
                progress(state["fraction"], state["text"])
    finally:
        group.stop()
    if not raw:
        raise RunFailed("the DLRM study ended without a result from rank 0")
    return assemble(request, raw)


def shares(timeline: list[Interval], ranks: int) -> list[dict[str, float]]:
    """Per rank: the share of its lane spent on each kind."""
    out = []
    for r in range(ranks):
        mine = [i for i in timeline if i["rank"] == r]
        total = sum(i["end"] - i["start"] for i in mine)
        kinds: dict[str, float] = {}
        for i in mine:
            kinds[i["kind"]] = kinds.get(i["kind"], 0.0) + (i["end"] - i["start"]) / total if total else 0.0
        out.append(kinds)
    return out


def assemble(request: DlrmRequest, raw: list[dict[str, Any]]) -> DlrmResult:
    """The result from rank 0's gathered records."""
    runs: list[SeedRun] = []
    forward, backward, off_rank = [], [], []
    for run in raw:
        single = [float(v) for v in run["single"]["losses"]]
        hybrid = [float(v) for v in run["ranks"][0]["losses"]]
        runs.append({"seed": run["seed"], "single": single, "hybrid": hybrid,
                     "max_gap": max(abs(a - b) for a, b in zip(single, hybrid, strict=True))})
        for step in range(request.steps):
            forward.append(sum(r["log"][step][0] for r in run["ranks"]))
            backward.append(sum(r["log"][step][1] for r in run["ranks"]))
            off_rank.append(sum(r["log"][step][2] for r in run["ranks"]))
    first = raw[0]
    ranks = first["ranks"]
    origin = min(r["origin"] for r in ranks)
    phases = [{"rank": r["memory"]["rank"], "kind": k, "start": s - origin, "end": e - origin, "step": step}
              for r in ranks for k, s, e, step in r["raw"]]
    phases = carve(phases, ("all-to-all",))  # the backward all-to-all runs inside the backward pass
    end = max((p["end"] for p in phases), default=0.0)
    timeline: list[Interval] = with_idle(phases, list(range(request.ranks)), end)  # type: ignore[assignment]
    floor, base, rate = first["floors"]
    single_lane = first["single"]["timeline"]
    return {"runs": runs, "loss_tolerance": LOSS_TOLERANCE,
            "equal": all(r["max_gap"] <= LOSS_TOLERANCE for r in runs), "owners": owners(request.tables,
                                                                                          request.ranks),
            "memory": [r["memory"] for r in ranks], "single_memory": first["single"]["memory"],
            "exchange": {"forward": forward, "backward": backward, "off_rank": off_rank,
                         "model": exchange_bytes(request.batch_size, request.tables, request.dim),
                         "allreduce": int(ranks[0]["allreduce"])},
            "timeline": timeline, "single_timeline": with_idle(single_lane, [0], max(  # type: ignore[typeddict-item]
                (i["end"] for i in single_lane), default=0.0)),
            "step_ms": {"single": 1000 * first["single"]["step_s"], "hybrid": 1000 * ranks[0]["step_s"]},
            "shares": shares(timeline, request.ranks), "floor": floor, "base": base, "click_rate": rate,
            "ranks": request.ranks, "tables": request.tables, "rows": request.rows, "dim": request.dim,
            "batch_size": request.batch_size, "steps": request.steps, "lr": request.lr, "device": request.device,
            "cores": os.cpu_count() or 1, "load": os.getloadavg()[0]}
