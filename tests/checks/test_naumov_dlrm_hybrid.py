"""Naumov et al. 2019: hybrid parallelism (tables split, all-to-all; MLPs all-reduced) trains the one-process model,
each rank holding only its tables, the all-to-all moving batch × tables × dim × 4 bytes each way. PASS on its
set-up and on a held-out one (4 ranks, another dimension and seed); FAIL without the backward all-to-all, and
with every table on every rank."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import run_check

QUICK = {"rows": 2000, "steps": 6, "repeats": 1, "batch_size": 64}


@pytest.mark.slow
def test_passes_on_its_set_up_and_on_a_held_out_one() -> None:
    outcome = run_check("naumov_dlrm_hybrid")
    assert outcome.passed, outcome.to_dict()
    assert len(outcome.details["runs"]) == 3  # three seeds
    held_out = run_check("naumov_dlrm_hybrid", ranks=4, dim=8, seed=7)
    assert held_out.passed, held_out.to_dict()


def test_fails_without_the_backward_all_to_all() -> None:
    outcome = run_check("naumov_dlrm_hybrid", fault="no-backward-exchange", **QUICK)
    assert not outcome.error, outcome.error
    gap, held, largest, rss, exchanged = outcome.measures
    assert not gap.passed  # the tables learn from their own rank's samples only: the losses part
    assert not exchanged.passed and exchanged.ours == pytest.approx(1.0)  # nothing came back
    assert held.passed and largest.passed


def test_fails_when_every_rank_holds_every_table() -> None:
    outcome = run_check("naumov_dlrm_hybrid", fault="replicated-tables", **QUICK)
    assert not outcome.error, outcome.error
    gap, held, largest, rss, exchanged = outcome.measures
    assert gap.passed and exchanged.passed  # the same maths…
    assert not held.passed and held.ours == pytest.approx(2.0)  # …with two copies of every table
    assert not largest.passed and not rss.passed
