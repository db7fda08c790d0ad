"""Shallue et al. 2019: steps to target fall with slope ≈ −1 at small batches, then flatten."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check
from studio.core.checks.paper.shallue_steps_to_target import fit_slope


def test_fit_slope_reads_perfect_scaling_and_a_plateau() -> None:
    assert fit_slope([(8, 800), (16, 400), (32, 200)]) == pytest.approx(-1.0)
    assert fit_slope([(256, 40), (512, 40)]) == pytest.approx(0.0)
    assert fit_slope([(8, 800)]) is None


def test_the_check_is_the_large_batch_labs() -> None:
    assert "shallue_steps_to_target" in [c.name for c in checks_for_demo("large_batch")]


@pytest.mark.slow
@pytest.mark.pooled_check("shallue_steps_to_target", seed=1)
def test_passes_on_a_held_out_seed(pooled_check) -> None:
    # other initial weights, test subset and batch order (the set-up, seed 0, runs in test_all_checks)
    outcome = pooled_check("shallue_steps_to_target", seed=1)
    assert outcome.passed, outcome.to_dict()
    steps = outcome.details["steps_to_target"]
    assert steps["8"] > 4 * steps["64"]  # perfect scaling: 8× the batch, ~8× fewer steps
    assert steps["2048"] > steps["256"] / 3  # diminishing returns: 8× the batch, far from 8× fewer


def test_fails_when_the_learning_rate_is_held_fixed() -> None:
    outcome = run_check("shallue_steps_to_target", batch_sizes="8,16,32,64", lr_scaling="fixed", lr_grid="1")
    assert not outcome.error
    assert not outcome.passed
    slope = outcome.measures[0]
    assert not slope.passed and slope.ours is not None and slope.ours > -0.7  # the steps no longer halve
