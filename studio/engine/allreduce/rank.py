"""One rank of ``studio allreduce`` (``python -m studio.engine.allreduce.rank``): joins the process group of the
largest p, then for each p (a group of the first p ranks), each size and each algorithm sums the same
whole-number inputs once untimed and ``repeats`` times timed, and sends rank 0 what it measured: its bytes sent
and received, its wall and CPU time, its error against the exact sum, and (for the shown p and size) its
intervals. Rank 0 prints JSON lines on stdout: ``progress`` lines, then one ``result``.

The inputs are whole numbers from −1000 to 1000 in float32, so every partial sum is exact whatever the order:
a correct all-reduce has no error at all. ``STUDIO_TEST_ALLREDUCE_KILL=RANK:P:ALGORITHM`` (tests only) makes rank
RANK kill itself with SIGKILL when ALGORITHM starts at p = P."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from datetime import timedelta
from typing import Any

from studio.engine.allreduce.traffic import Spans, Traffic
from studio.engine.jobs.rank_group import die, emit, kill_point, watch_parent

# a rank may wait this long for its peers (rank 0's one-process reference, the other ranks' turns); a rank that
# dies is found by the launcher at once (it stops them all), not by this timeout
WAIT_S = 6 * 3600
KILL_ENV = "STUDIO_TEST_ALLREDUCE_KILL"


def inputs(seed: int, rank: int, elements: int, device: Any) -> Any:
    """Rank ``rank``'s vector: whole numbers from −1000 to 1000 (float32), the same for a seed on every run."""
    import torch

    gen = torch.Generator().manual_seed(seed * 1009 + rank)
    return torch.randint(-1000, 1001, (elements,), generator=gen).to(torch.float32).to(device)


def exact_sum(seed: int, p: int, elements: int, device: Any) -> Any:
    """The sum of the p ranks' vectors, computed here from their seeds (exact: whole numbers in float32)."""
    total = inputs(seed, 0, elements, device)
    for r in range(1, p):
        total += inputs(seed, r, elements, device)
    return total


def run_once(algorithm: str, x: Any, rank: int, p: int, traffic: Traffic, spans: Spans, group: Any,
             fault: str) -> None:
    import torch.distributed as dist

    from studio.engine.allreduce.ring import ring_allreduce
    from studio.engine.allreduce.server import server_allreduce

    if algorithm == "ring":
        ring_allreduce(x, rank, p, traffic, spans, group, fault)
    elif algorithm == "server":
        server_allreduce(x, rank, p, traffic, spans, group)
    else:
        with spans.span("all_reduce"):
            dist.all_reduce(x, group=group)


def measure(algorithm: str, p: int, n: int, rank: int, group: Any, request: dict[str, Any], device: Any,
            shown: bool, expected: Any, mine: Any) -> dict[str, Any]:
    """One algorithm at one p and size: one warm-up, then ``repeats`` timed all-reduces on this rank."""
    import torch
    import torch.distributed as dist

    cuda = device.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    x = torch.empty_like(mine)
    walls, cpus, errors = [], [], []
    traffic = Traffic()
    spans = Spans(rank, torch.cuda.synchronize if cuda else None)
    origin = 0.0
    repeats = int(request["repeats"])
    for i in range(repeats + 1):
        x.copy_(mine)
        traffic = Traffic()
        spans.on = shown and i == repeats
        sync()
        dist.barrier(group=group)
        start, cpu = time.perf_counter(), time.process_time()
        run_once(algorithm, x, rank, p, traffic, spans, group, request["fault"])
        sync()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        errors.append(float((x - expected).abs().max().item()))
        if i:  # the first is the warm-up (connections made, buffers touched)
            walls.append(wall)
            cpus.append(cpu)
        if spans.on:
            origin = start
    return {"rank": rank, "sent": traffic.sent, "received": traffic.received, "wall_s": statistics.median(walls),
            "cpu_s": statistics.median(cpus), "error": max(errors), "origin": origin, "raw": spans.raw}


def plan_of(request: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(p, size, algorithm) in the order they run: p ascending, then sizes, then algorithms."""
    return [(p, n, a) for p in sorted(set(request["ranks"])) for n in request["sizes"] for a in request["algorithms"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="one rank of `studio allreduce` (internal)")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--spec", required=True, help="JSON: the request")
    a = parser.parse_args(argv)
    watch_parent(os.getppid())
    import torch
    import torch.distributed as dist

    request = json.loads(a.spec)["request"]
    torch.set_num_threads(1)
    cuda = request["device"] == "cuda"
    device = torch.device("cuda", a.rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=a.rank,
                            world_size=a.world, timeout=timedelta(seconds=WAIT_S))
    kill = kill_point(KILL_ENV, a.rank)
    shown = (request["timeline_ranks"] or max(request["ranks"]), request["timeline_size"] or max(request["sizes"]))
    plan = plan_of(request)
    rows: list[dict[str, Any]] = []
    groups: dict[int, Any] = {}
    for p in sorted(set(request["ranks"])):  # every rank makes every group, in one order (a collective call)
        groups[p] = dist.new_group(list(range(p))) if p < a.world else dist.group.WORLD
    cache: dict[tuple[int, int], tuple[Any, Any]] = {}
    for done, (p, n, algorithm) in enumerate(plan):
        if a.rank == 0:
            emit({"type": "progress", "done": done, "total": len(plan), "label": f"{algorithm} at p = {p}",
                  "size": n})
        if kill == f"{p}:{algorithm}":
            die()
        record = None
        if a.rank < p:
            if (p, n) not in cache:
                cache.clear()
                elements = n // 4
                cache[(p, n)] = (exact_sum(request["seed"], p, elements, device),
                                 inputs(request["seed"], a.rank, elements, device))
            expected, mine = cache[(p, n)]
            record = measure(algorithm, p, n, a.rank, groups[p], request, device, (p, n) == shown, expected, mine)
        gathered: list[Any] = [None] * a.world if a.rank == 0 else []
        dist.gather_object(record, gathered if a.rank == 0 else None, dst=0)
        if a.rank == 0:
            rows.append({"algorithm": algorithm, "ranks": p, "size": n, "records": gathered[:p]})
    dist.barrier()
    dist.destroy_process_group()
    if a.rank == 0:
        emit({"type": "result", "rows": rows})


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
