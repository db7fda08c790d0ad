"""The runner of the paper check ``sergeev_ring_allreduce`` (``core/checks/paper/sergeev_ring_allreduce.py``):
real rank processes (``launch.run_allreduce``) sum whole-number vectors with the ring and with a central server at
every p, and the numbers are read from what each rank counted and timed.

Bytes are counted where they are sent and received, so they are exact and no other program on the machine changes
them. No time is checked (the details keep it): with up to 8 processes on 2 cores the wall time measures the
machine's scheduling, and the CPU time per rank is not robust either — on loopback TCP the kernel charges the
receiving side's work to whichever process is on the CPU when the packets arrive, so beside one CPU-bound program
the server's rank 0 spent 46 ms of CPU instead of 73 ms (p = 8, 16 MiB) and the server ÷ ring ratio fell from
3.9 to 2.4."""

from __future__ import annotations

import statistics
from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.contracts.allreduce import AllreduceRequest, parse_sizes, ring_bytes, server_bytes, size_text
from studio.core.demos.common import report
from studio.core.numbers.ints import split_ints

BYTES_TOLERANCE = 1e-3  # the ring's chunks differ by one element when p does not divide N: at most 2(p−1)·4 bytes


def deviation(ratios: list[float]) -> float:
    """The largest |ratio − 1|."""
    return max(abs(r - 1.0) for r in ratios)


def run(progress: Any = None, ranks: str = "2,3,4,5,6,7,8", sizes: str = "1M,16M", repeats: int = 2, seed: int = 0,
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
    )
    details = {"rows": out["rows"], "load": out["load"], "cores": out["cores"], "shown": f"p = {big_p}, N = "
               f"{size_text(big_n)}", "cpu_s": {a: r["cpu_s"] for a, r in at.items()},
               "wall_s": {a: r["wall_s"] for a, r in at.items()},
               "cpu_ratio": at["server"]["cpu_s"][0] / max(max(at["ring"]["cpu_s"]), 1e-9),
               "wall_ratio": statistics.median(at["server"]["wall_s"]) / statistics.median(at["ring"]["wall_s"])}
    report(progress, 1.0, f"ring bytes per rank within {deviation(ring_ratios):.1e} of the model")
    return Reproduction(measures, details)
