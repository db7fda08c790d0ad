"""The runner of the paper check ``sergeev_ring_allreduce`` (``core/checks/paper/sergeev_ring_allreduce.py``):
real rank processes (``launch.run_allreduce``) sum whole-number vectors with the ring and with a central server at
every p, and the numbers are read from what each rank counted and timed.

Bytes are counted where they are sent and received, so they are exact and no other program on the machine changes
them. Time is measured as each rank's CPU time (its process, gloo's threads included), not its wall time: with up
to 8 processes on 2 cores the wall time measures the machine's scheduling; CPU time is what each rank spent
itself, which a second CPU-bound program does not change much."""

from __future__ import annotations

import statistics
from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.contracts.allreduce import AllreduceRequest, parse_sizes, ring_bytes, server_bytes, size_text
from studio.core.demos.common import report
from studio.core.numbers.ints import split_ints

BYTES_TOLERANCE = 1e-3  # the ring's chunks differ by one element when p does not divide N: at most 2(p−1)·4 bytes
CPU_RATIO_MIN = 2.0  # the server's rank 0 ÷ the ring's busiest rank, CPU time at the largest p (the bytes say p/2)


def deviation(ratios: list[float]) -> float:
    """The largest |ratio − 1|."""
    return max(abs(r - 1.0) for r in ratios)


def run(progress: Any = None, ranks: str = "2,3,4,5,6,7,8", sizes: str = "1M,16M", repeats: int = 5, seed: int = 0,
        fault: str = "") -> Reproduction:
    """Ring and server at every p of ``ranks`` and every size. A broken set-up: ``fault="short-ring"`` (the
    all-gather stops a step early: a chunk of the result is a partial sum, and each rank sends N/p too little)."""
    from studio.engine.allreduce.launch import run_allreduce

    ps = tuple(sorted(set(split_ints(ranks))))
    request = AllreduceRequest(ranks=ps, sizes=parse_sizes(sizes), algorithms=("ring", "server"), repeats=repeats,
                               seed=seed, fault=fault)
    report(progress, 0.0, f"ring and server all-reduce at p = {ranks}")
    out = run_allreduce(request, lambda f, t: report(progress, 0.97 * f, t))
    ring = [r for r in out["rows"] if r["algorithm"] == "ring"]
    server = [r for r in out["rows"] if r["algorithm"] == "server"]
    ring_ratios = [b / ring_bytes(r["ranks"], r["size"]) for r in ring for key in ("sent", "received")
                   for b in (r[key] or [])]
    server_ratios = [r[key][0] / server_bytes(r["ranks"], r["size"], 0) for r in server  # type: ignore[index]
                     for key in ("sent", "received")]
    error = max(r["max_error"] for r in ring)
    big_p, big_n = max(ps), max(request.sizes)
    at = {r["algorithm"]: r for r in out["rows"] if r["ranks"] == big_p and r["size"] == big_n}
    cpu_ratio = at["server"]["cpu_s"][0] / max(max(at["ring"]["cpu_s"]), 1e-9)
    cells = len(ring)  # (p, size) pairs
    measures = (
        Measure.at_most(f"ring: |bytes each rank sent or received ÷ 2(p−1)/p·N − 1|, the largest of n = "
                        f"{len(ring_ratios)} (p = {ranks}, N = {sizes}, every rank)", deviation(ring_ratios),
                        BYTES_TOLERANCE, "2(p−1)/p·N per rank: at most 2N however many ranks (Patarasuk & Yuan "
                                         "2009; Sergeev & Del Balso 2018, §3)"),
        Measure.at_most(f"central server: |bytes rank 0 received or sent ÷ (p−1)·N − 1|, the largest of n = "
                        f"{len(server_ratios)}", deviation(server_ratios), BYTES_TOLERANCE,
                        "(p−1)·N at the server: its link's traffic grows linearly with the workers (Sergeev & Del "
                        "Balso 2018, §3; Patarasuk & Yuan 2009, §1)"),
        Measure.at_most(f"ring: the largest |result − exact sum| over {cells} (p, N) × every rank × "
                        f"{repeats + 1} runs", error, 0.0, "an all-reduce: every rank ends with the sum"),
        Measure.at_least(f"CPU time at p = {big_p}, N = {size_text(big_n)}: the server's rank 0 ÷ the ring's busiest "
                         f"rank (medians of {repeats} runs)", cpu_ratio, CPU_RATIO_MIN,
                         f"the server's bytes are p/2 = {big_p / 2:g}× the ring's per rank (the cost model); "
                         "bandwidth-optimal ring (Patarasuk & Yuan 2009)"),
    )
    details = {"rows": out["rows"], "load": out["load"], "cores": out["cores"],
               "cpu_s": {a: r["cpu_s"] for a, r in at.items()}, "wall_s": {a: r["wall_s"] for a, r in at.items()},
               "wall_ratio": statistics.median(at["server"]["wall_s"]) / statistics.median(at["ring"]["wall_s"])}
    report(progress, 1.0, f"ring bytes per rank within {deviation(ring_ratios):.1e} of the model")
    return Reproduction(measures, details)
