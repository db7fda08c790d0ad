"""The runner of the paper check ``naumov_dlrm_hybrid`` (``core/checks/paper/naumov_dlrm_hybrid.py``): real rank
processes (``launch.run_dlrm``) train the DLRM hybrid-parallel beside the one-process reference on the same
batches, for several seeds; the numbers are the losses, the bytes each rank holds and the bytes the all-to-alls
moved — counted, so exact and unchanged by other programs on the machine. No time is checked."""

from __future__ import annotations

import math
from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.contracts.dlrm import DlrmRequest, exchange_bytes, table_bytes
from studio.core.demos.common import report

RSS_BAND = (0.75, 1.25)  # a rank's measured memory growth ÷ its share of the single process's (allocator slack)


def worst(ratios: list[float]) -> float:
    """The ratio farthest from 1."""
    return max(ratios, key=lambda r: abs(r - 1.0))


def deviation(ratios: list[float]) -> float:
    """The largest |ratio − 1|."""
    return max(abs(r - 1.0) for r in ratios)


def run(progress: Any = None, ranks: int = 2, tables: int = 8, rows: int = 100_000, dim: int = 16,
        batch_size: int = 256, steps: int = 20, repeats: int = 3, seed: int = 0, fault: str = "") -> Reproduction:
    """``repeats`` seeds, each trained in one process and hybrid-parallel. Broken set-ups: ``fault=
    "no-backward-exchange"`` (the tables get only their own rank's samples' gradients: the losses part) and
    ``fault="replicated-tables"`` (every rank builds every table, as plain data parallelism would)."""
    from studio.engine.dlrm.launch import run_dlrm

    request = DlrmRequest(ranks=ranks, tables=tables, rows=rows, dim=dim, batch_size=batch_size, steps=steps,
                          warmup_steps=min(2, steps - 1), timeline_steps=1, seed=seed, repeats=repeats, fault=fault)
    report(progress, 0.0, f"DLRM on {ranks} ranks and in one process, {repeats} seeds")
    out = run_dlrm(request, lambda f, t: report(progress, 0.97 * f, t))
    gap = max(r["max_gap"] for r in out["runs"])
    all_tables = table_bytes(tables, rows, dim)
    held = sum(m["table_bytes"] for m in out["memory"]) / all_tables
    mlp = out["memory"][0]["mlp_bytes"]
    share = math.ceil(tables / ranks) * rows * dim * 4
    # every parameter has one Adagrad accumulator of its size, on the rank that holds it: twice the parameters
    largest = max((m["table_bytes"] + m["mlp_bytes"] + m["optimizer_bytes"]) / (2 * (share + mlp))
                  for m in out["memory"])
    single_rss = out["single_memory"]["rss_growth"]
    rss = [m["rss_growth"] / (single_rss * m["table_bytes"] / all_tables) if single_rss > 0 else math.nan
           for m in out["memory"]]
    volume = exchange_bytes(batch_size, tables, dim)
    moved = [b / volume for b in (*out["exchange"]["forward"], *out["exchange"]["backward"])]
    n = len(out["runs"])
    measures = (
        Measure.at_most(f"largest |hybrid − one-process loss| over {n} seeds × {steps} steps", gap,
                        out["loss_tolerance"], "the same model and updates as one device: model parallelism for the "
                                               "tables, data parallelism for the MLPs (Naumov et al. 2019, §4)"),
        Measure.within("bytes of tables the ranks hold together ÷ one copy of the tables", held, 1.0, 1.0,
                       "1: each table lives on one device only; the tables are what does not fit (§4)"),
        Measure.within(f"the largest rank's parameters and Adagrad state ÷ those of ⌈T/p⌉ = {math.ceil(tables / ranks)}"
                       " tables + the MLPs", largest, 0.999, 1.001,
                       f"≈ 1/p of the tables + the replicated MLPs per device (p = {ranks})"),
        Measure.within(f"measured: each rank's memory growth while building ÷ its tables' share of the one "
                       f"process's (worst of {ranks})", worst(rss), *RSS_BAND,
                       "the memory really is split, not only the count (resident memory, /proc)"),
        Measure.at_most(f"|all-to-all bytes per step, forward and backward, ÷ batch × tables × dim × 4 − 1| "
                        f"(batch × tables × dim × 4 = {volume:,}; the largest of n = {len(moved)})", deviation(moved),
                        0.0, "the butterfly shuffle: every sample's looked-up vector of every table once per "
                              "direction (§4, Fig. 3)"),
    )
    details = {"runs": out["runs"], "memory": out["memory"], "single_memory": out["single_memory"],
               "exchange": out["exchange"], "rss_ratio": rss, "step_ms": out["step_ms"], "load": out["load"]}
    report(progress, 1.0, f"hybrid = one process within {gap:.1e} over {n} seeds")
    return Reproduction(measures, details)
