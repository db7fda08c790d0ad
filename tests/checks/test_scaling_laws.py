"""The scaling-laws method check: Studio's fits recover the exponents the points were drawn with (the papers' by
default, others too), and points too noisy to pin an exponent FAIL. A method check, listed apart."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.checks.base import METHOD_CHECK
from studio.core.checks.catalog import CHECKS, run_check
from studio.core.maths.scaling_fit import chinchilla_law, fit_chinchilla


def test_it_is_a_method_check_listed_after_the_reproductions() -> None:
    assert CHECKS["scaling_laws"].kind == METHOD_CHECK
    kinds = [c.is_method_check for c in CHECKS.values()]
    assert kinds == sorted(kinds) and kinds[-1]  # every reproduction first


@pytest.mark.slow  # three Chinchilla fits of 108 starts each
@pytest.mark.pooled_check("scaling_laws", kaplan_alpha=0.1, chinchilla_alpha=0.3, chinchilla_beta=0.2)
def test_other_exponents_are_recovered_too(pooled_check) -> None:
    """The held-out knob: points drawn with exponents the papers did not publish. Not a larger β: at β = 0.4 the
    B/D^β term falls to 0.4 % of the loss at D = 1e12, below the 1 % noise, and nothing pins β (fitted 0.31, 0.35
    and 0.39 on the three draws)."""
    outcome = pooled_check("scaling_laws", kaplan_alpha=0.1, chinchilla_alpha=0.3, chinchilla_beta=0.2)
    assert outcome.passed, outcome.to_dict()
    fits = outcome.details["fits"]
    assert [f["Kaplan α_N"] for f in fits] == pytest.approx([0.1] * 3, rel=0.05)
    assert [f["Chinchilla β"] for f in fits] == pytest.approx([0.2] * 3, rel=0.05)


def test_another_exponent_of_kaplans_law_is_recovered_quickly() -> None:
    outcome = run_check("scaling_laws", kaplan_alpha=0.2, chinchilla=False)
    assert outcome.passed and [m.n for m in outcome.measures] == [3]


def test_fails_when_the_points_are_too_noisy_to_pin_the_exponent() -> None:
    # 30 % multiplicative noise on 14 points: the fitted α_N is off by ~17 % on average
    outcome = run_check("scaling_laws", chinchilla=False, noise=0.3)
    assert not outcome.passed and outcome.error == ""
    assert [m.passed for m in outcome.measures] == [False]
    assert outcome.measures[0].ours > 10


def test_fit_chinchilla_is_exact_on_noiseless_points() -> None:
    nn, dd = (g.ravel() for g in np.meshgrid(np.geomspace(1e7, 1e10, 5), np.geomspace(1e8, 1e11, 5)))
    fit = fit_chinchilla(nn, dd, chinchilla_law(nn, dd, 2.0, 100.0, 300.0, 0.3, 0.4))
    assert (fit.e, fit.a, fit.b, fit.alpha, fit.beta) == pytest.approx((2.0, 100.0, 300.0, 0.3, 0.4), rel=1e-3)
    assert fit.r2 == pytest.approx(1.0)
