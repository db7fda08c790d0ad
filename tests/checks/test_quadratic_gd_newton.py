"""The quadratic's paper check (GD's 2/λ_max threshold, Newton in one step): PASS on its set-up and on a held-out
bowl; FAIL when the rate 'above' the threshold is in fact below it."""

from __future__ import annotations

from studio.core.checks.catalog import run_check


def test_passes_on_its_set_up_and_on_a_held_out_condition_number() -> None:
    outcome = run_check("quadratic_gd_newton")
    assert outcome.passed, outcome.to_dict()
    held_out = run_check("quadratic_gd_newton", condition=4.0)  # another bowl, the same λ_max = 1
    assert held_out.passed, held_out.to_dict()


def test_fails_when_the_rate_above_is_below_the_threshold() -> None:
    outcome = run_check("quadratic_gd_newton", above=0.9)  # η = 1.8 < 2/λ_max: GD converges, nothing diverges
    assert not outcome.error and not outcome.passed
    below, above, newton = outcome.measures
    assert below.passed and not above.passed and newton.passed
