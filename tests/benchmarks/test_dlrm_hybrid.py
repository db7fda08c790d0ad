"""DLRM hybrid parallelism on 2 and 4 processes against the one-process run of the same model and batches (the
baseline, measured in the same run): the step time and its ratio, where each rank's time went (compute,
all-to-all, all-reduce, idle), the tables and the measured memory growth per process, and the all-to-all's bytes
per step beside batch × tables × dim × 4. Run: ``nice -n 5 python -m pytest tests/benchmarks/test_dlrm_hybrid.py
-m benchmark -s``."""

from __future__ import annotations

import os

import pytest

from studio.core.contracts.dlrm import DlrmRequest
from studio.engine.dlrm.launch import run_dlrm

pytestmark = pytest.mark.benchmark


def test_hybrid_against_one_process() -> None:
    load_before = os.getloadavg()[0]
    print(f"\nload average {load_before:.1f} before; 8 tables of 100,000 × 16, batch 256, 100 steps (2 warm-up); "
          "medians of the timed steps")
    print(f"{'p':>2} {'one ms':>7} {'hybrid ms':>9} {'×':>6} {'gap':>8} {'a2a B/step':>10} {'model':>8} "
          f"{'tables MB/rank':>14} {'RSS MB/rank':>11}  time of rank 0")
    for p in (2, 4):
        out = run_dlrm(DlrmRequest(ranks=p, timeline_steps=10))
        ms = out["step_ms"]
        shares = ", ".join(f"{k} {v:.0%}" for k, v in sorted(out["shares"][0].items(), key=lambda kv: -kv[1]))
        print(f"{p:>2} {ms['single']:>7.1f} {ms['hybrid']:>9.1f} {ms['hybrid'] / ms['single']:>5.2f}× "
              f"{out['runs'][0]['max_gap']:>8.1e} {out['exchange']['forward'][0]:>10,} {out['exchange']['model']:>8,} "
              f"{out['memory'][0]['table_bytes'] / 1e6:>14.1f} {out['memory'][0]['rss_growth'] / 1e6:>11.1f}  "
              f"{shares}")
        print(f"   one process: tables {out['single_memory']['table_bytes'] / 1e6:.1f} MB, RSS growth "
              f"{out['single_memory']['rss_growth'] / 1e6:.1f} MB; load after {out['load']:.1f}")
        assert out["equal"]
