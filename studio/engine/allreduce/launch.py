"""``studio allreduce``'s driver: check the request (one sentence per problem, before any process starts: the
limits, the port, the memory), run the ranks (``engine/jobs/rank_group.RankGroup``; a rank that dies stops the
others and is named), and build the :class:`AllreduceResult` from what rank 0 gathered."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from studio.core.contracts.allreduce import (
    AllreduceRequest,
    AllreduceResult,
    Measurement,
    Phase,
    model_bytes,
    size_text,
    validate,
)
from studio.core.errors import ConfigError, RunFailed
from studio.engine.allreduce.traffic import with_idle
from studio.engine.jobs.rank_group import RankGroup, cuda_count

Report = Callable[[float, str], None]
RANK_BASE_BYTES = 350 * 2**20  # one rank process with torch imported, before its vectors


def port_problem(port: int) -> str:
    """Why ``port`` cannot take the rendezvous ("" when it can): checked by binding it on 127.0.0.1."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed socket's TIME_WAIT does not count
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return f"port {port} is in use by another program; choose another port, or 0 for a free one"
    return ""


def available_memory() -> int | None:
    """Bytes the kernel says can be given to new processes (MemAvailable), None where it does not say."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_needed(request: AllreduceRequest) -> int:
    """Bytes the ranks hold at their peak: each of p ranks its input, the exact sum and the working vector,
    rank 0 the p−1 vectors the server receives, and every process its own torch."""
    peak = max(3 * n * p + (p - 1) * n for p in request.ranks for n in request.sizes)
    return peak + request.world() * RANK_BASE_BYTES


def check(request: AllreduceRequest) -> None:
    """Every check before any process starts; ConfigError (one sentence) on the first problem."""
    validate(request)
    if request.port:
        problem = port_problem(request.port)
        if problem:
            raise ConfigError(problem)
    need, free = memory_needed(request), available_memory()
    if free is not None and need > free:
        raise ConfigError(f"{request.world()} processes summing {size_text(max(request.sizes))} need about "
                          f"{need / 2**30:.1f} GiB and this machine has {free / 2**30:.1f} GiB free; use a smaller "
                          "size or fewer processes")
    if request.device == "cuda":
        count = cuda_count()
        if count < request.world():
            raise ConfigError(f"{request.world()} processes need as many GPUs (one each); this machine has {count}")


def run_allreduce(request: AllreduceRequest, progress: Report | None = None) -> AllreduceResult:
    """Check ``request``, run every (p, size, algorithm) on ``request.world()`` rank processes, return the result."""
    check(request)
    if progress:
        progress(0.0, f"starting {request.world()} rank processes")
    group = RankGroup("studio.engine.allreduce.rank", request.world(), {"request": asdict(request)},
                      "all-reduce rank", request.port)
    state: dict[str, Any] = {"label": "start-up", "fraction": 0.0}
    raw: list[dict[str, Any]] = []
    try:
        for msg in group.messages(lambda: state["label"]):
            if msg.get("type") == "progress":
                state.update(label=f"{msg['label']}, {size_text(msg['size'])}", fraction=msg["done"] / msg["total"])
                if progress:
                    progress(state["fraction"], state["label"])
            elif msg.get("type") == "result":
                raw = msg["rows"]
            elif progress:  # a heartbeat: the same report again (a Progress raises Cancelled here once asked)
                progress(state["fraction"], state["label"])
    finally:
        group.stop()
    if not raw:
        raise RunFailed("the all-reduce ended without a result from rank 0")
    return assemble(request, raw)


def assemble(request: AllreduceRequest, raw: list[dict[str, Any]]) -> AllreduceResult:
    """The result from rank 0's gathered records: one row per (algorithm, p, size), the shown timelines."""
    rows: list[Measurement] = []
    timelines: dict[str, list[Phase]] = {}
    shown = (request.shown_ranks(), request.shown_size())
    for r in raw:
        algorithm, p, n, records = r["algorithm"], int(r["ranks"]), int(r["size"]), r["records"]
        counted = algorithm != "torch"
        models = [model_bytes(algorithm, p, n, k) for k in range(p)]
        rows.append({"algorithm": algorithm, "ranks": p, "size": n,
                     "sent": [int(x["sent"]) for x in records] if counted else None,
                     "received": [int(x["received"]) for x in records] if counted else None,
                     "model": [float(m) for m in models if m is not None] if counted else None,
                     "wall_s": [float(x["wall_s"]) for x in records], "cpu_s": [float(x["cpu_s"]) for x in records],
                     "max_error": max(float(x["error"]) for x in records), "repeats": request.repeats})
        if (p, n) == shown:
            origin = min(x["origin"] for x in records)
            phases = [{"rank": x["rank"], "kind": k, "start": s - origin, "end": e - origin, "step": step}
                      for x in records for k, s, e, step in x["raw"]]
            end = max((ph["end"] for ph in phases), default=0.0)
            timelines[algorithm] = with_idle(phases, list(range(p)), end)  # type: ignore[assignment]
    return {"rows": rows, "timelines": timelines, "timeline_ranks": shown[0], "timeline_size": shown[1],
            "ranks": sorted(set(request.ranks)), "sizes": list(request.sizes), "repeats": request.repeats,
            "device": request.device, "cores": os.cpu_count() or 1, "load": os.getloadavg()[0], "seed": request.seed,
            "notes": [] if "torch" not in request.algorithms else
            ["torch's all_reduce is the reference for the result and the time; it does not report its bytes"]}
