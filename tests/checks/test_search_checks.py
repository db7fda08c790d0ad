"""Issue 36's checks: TPE beats random search at equal trials (Bergstra et al. 2011), ASHA keeps the best
configuration of a random-search set at a fraction of its compute (Li et al. 2020), and the learning-rate range
test's rate trains within a margin of a grid's best (Smith 2017). Each PASSes on its set-up and on a held-out one
(other seeds, another landscape, set or net), and FAILs when the method is broken: random search in TPE's place,
a pruner told the wrong direction, the ramp's blown-up end taken as the rate."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
@pytest.mark.pooled_check("bergstra_tpe_vs_random")
@pytest.mark.pooled_check("bergstra_tpe_vs_random", first_seed=50, shift=0.8, trials=40)
def test_tpe_beats_random_search_on_its_set_up_and_a_held_out_one(pooled_check) -> None:
    outcome = pooled_check("bergstra_tpe_vs_random")
    assert outcome.passed, outcome.to_dict()
    held_out = pooled_check("bergstra_tpe_vs_random", first_seed=50, shift=0.8, trials=40)  # optimum a decade over
    assert held_out.passed, held_out.to_dict()


def test_random_search_in_tpes_place_fails() -> None:
    outcome = run_check("bergstra_tpe_vs_random", sampler="random", seeds=6, trials=30)
    assert not outcome.error, outcome.error
    ratio, wins = outcome.measures
    assert not outcome.passed and ratio.ours == pytest.approx(1.0) and wins.ours == 0  # the same as itself


@pytest.mark.slow
@pytest.mark.pooled_check("li_asha_compute")
@pytest.mark.pooled_check("li_asha_compute", seed=3)
@pytest.mark.pooled_check("li_asha_compute", seed=11, trials=100)
def test_asha_keeps_the_best_configuration_at_a_fraction_of_the_compute(pooled_check) -> None:
    outcome = pooled_check("li_asha_compute")
    assert outcome.passed, outcome.to_dict()
    gap, fraction = outcome.measures
    assert fraction.ours is not None and fraction.ours < 0.5 and outcome.details["kept"] >= 2
    for held_out in ({"seed": 3}, {"seed": 11, "trials": 100}):
        again = pooled_check("li_asha_compute", **held_out)
        assert again.passed, (held_out, again.to_dict())


def test_a_pruner_told_the_wrong_direction_fails() -> None:
    outcome = run_check("li_asha_compute", direction="minimize")
    assert not outcome.error, outcome.error
    gap, _fraction = outcome.measures
    assert not gap.passed and gap.ours is not None and gap.ours > 0.05  # it kept the worst


@pytest.mark.slow
@pytest.mark.pooled_check("smith_lr_range_test")
@pytest.mark.pooled_check("smith_lr_range_test", seed=3, widths="256", train_samples=3000)
def test_the_range_tests_rate_trains_within_a_margin_of_the_grids_best(pooled_check) -> None:
    outcome = pooled_check("smith_lr_range_test")
    assert outcome.passed, outcome.to_dict()
    held_out = pooled_check("smith_lr_range_test", seed=3, widths="256", train_samples=3000)  # another net and data
    assert held_out.passed, held_out.to_dict()


def test_training_at_the_ramps_blown_up_end_fails() -> None:
    outcome = run_check("smith_lr_range_test", pick="last", train_samples=1000, test_samples=500, epochs=1,
                        ramp_steps=100)
    assert not outcome.error, outcome.error
    gap, _inside = outcome.measures
    assert not outcome.passed and gap.ours is not None and gap.ours > 20  # the rate where the loss blew up
