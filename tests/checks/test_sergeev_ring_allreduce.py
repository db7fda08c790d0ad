"""Sergeev & Del Balso 2018 / Patarasuk & Yuan 2009: the ring's bytes per rank follow 2(p−1)/p·N (flat in p), the
server's (p−1)·N, and the sum is exact. PASS on its set-up and on a held-out one (other p, an uneven size, another
seed), also beside a CPU-bound program (nothing it measures is a time); FAIL on a broken ring."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import run_check
from tests.benchmarks.cpu_hog import cpu_hog


@pytest.mark.slow
def test_passes_on_its_set_up_and_on_a_held_out_one() -> None:
    outcome = run_check("sergeev_ring_allreduce")
    assert outcome.passed, outcome.to_dict()
    ring_dev, server_dev, error = (m.ours for m in outcome.measures)
    assert ring_dev is not None and ring_dev < 1e-4 and server_dev == 0 and error == 0
    # held out: odd process counts, a size p does not divide into equal chunks, another seed
    held_out = run_check("sergeev_ring_allreduce", ranks="3,5,7", sizes="3M", seed=11)
    assert held_out.passed, held_out.to_dict()


@pytest.mark.slow
def test_passes_beside_a_cpu_bound_program() -> None:
    """Bytes are counted where they are sent: one more busy process on the 2 cores does not change them."""
    with cpu_hog():
        outcome = run_check("sergeev_ring_allreduce", ranks="2,8", sizes="16M")
    assert outcome.passed, outcome.to_dict()


def test_fails_when_the_ring_stops_a_step_short() -> None:
    outcome = run_check("sergeev_ring_allreduce", ranks="2,3", sizes="64K", repeats=1, fault="short-ring")
    assert not outcome.error, outcome.error
    assert not outcome.passed
    ring_bytes, _server, error = outcome.measures
    assert not ring_bytes.passed and ring_bytes.ours is not None and ring_bytes.ours >= 0.1  # a chunk unsent
    assert not error.passed and error.ours is not None and error.ours > 0  # a chunk left a partial sum
