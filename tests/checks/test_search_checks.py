"""Issue 36's method checks: TPE beats random search at equal trials (Bergstra et al. 2011) and ASHA keeps the
best configuration of a random-search set at a fraction of its compute (Li et al. 2020). Each PASSes on its
set-up and on a held-out one (other seeds, another landscape or set), and FAILs when the method is broken:
random search in TPE's place, a pruner told the wrong direction."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
def test_tpe_beats_random_search_on_its_set_up_and_a_held_out_one() -> None:
    outcome = run_check("bergstra_tpe_vs_random")
    assert outcome.passed, outcome.to_dict()
    held_out = run_check("bergstra_tpe_vs_random", first_seed=50, shift=0.8, trials=40)  # optimum a decade over
    assert held_out.passed, held_out.to_dict()


def test_random_search_in_tpes_place_fails() -> None:
    outcome = run_check("bergstra_tpe_vs_random", sampler="random", seeds=6, trials=30)
    assert not outcome.error, outcome.error
    ratio, wins = outcome.measures
    assert not outcome.passed and ratio.ours == pytest.approx(1.0) and wins.ours == 0  # the same as itself


@pytest.mark.slow
def test_asha_keeps_the_best_configuration_at_a_fraction_of_the_compute() -> None:
    outcome = run_check("li_asha_compute")
    assert outcome.passed, outcome.to_dict()
    gap, fraction = outcome.measures
    assert fraction.ours is not None and fraction.ours < 0.5 and outcome.details["kept"] >= 2
    for held_out in ({"seed": 3}, {"seed": 11, "trials": 100}):
        again = run_check("li_asha_compute", **held_out)
        assert again.passed, (held_out, again.to_dict())


def test_a_pruner_told_the_wrong_direction_fails() -> None:
    outcome = run_check("li_asha_compute", direction="minimize")
    assert not outcome.error, outcome.error
    gap, _fraction = outcome.measures
    assert not gap.passed and gap.ours is not None and gap.ours > 0.05  # it kept the worst
