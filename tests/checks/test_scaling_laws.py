"""The scaling-laws check: Studio's fits recover Kaplan's and Chinchilla's exponents from their own laws, and a
law drawn with another exponent FAILs."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.checks.catalog import run_check
from studio.core.maths.scaling_fit import chinchilla_law, fit_chinchilla


@pytest.mark.slow  # about 10 s of CPU (the Chinchilla fit's 108 starts); CI's slow step runs it
def test_passes_on_the_published_laws() -> None:
    outcome = run_check("scaling_laws")
    assert outcome.passed, outcome.to_dict()
    kaplan, alpha, beta = (m.ours for m in outcome.measures)
    assert kaplan == pytest.approx(0.076, rel=0.05)
    assert alpha == pytest.approx(0.34, rel=0.05) and beta == pytest.approx(0.28, rel=0.05)


def test_fails_when_the_points_come_from_another_exponent() -> None:
    outcome = run_check("scaling_laws", kaplan_alpha=0.1, chinchilla=False)
    assert not outcome.passed and outcome.error == ""
    assert [m.passed for m in outcome.measures] == [False]
    assert outcome.measures[0].ours == pytest.approx(0.1, rel=0.05)


def test_fit_chinchilla_is_exact_on_noiseless_points() -> None:
    nn, dd = (g.ravel() for g in np.meshgrid(np.geomspace(1e7, 1e10, 5), np.geomspace(1e8, 1e11, 5)))
    fit = fit_chinchilla(nn, dd, chinchilla_law(nn, dd, 2.0, 100.0, 300.0, 0.3, 0.4))
    assert (fit.e, fit.a, fit.b, fit.alpha, fit.beta) == pytest.approx((2.0, 100.0, 300.0, 0.3, 0.4), rel=1e-3)
    assert fit.r2 == pytest.approx(1.0)


def test_the_chinchilla_exponent_drawn_off_the_paper_fails() -> None:
    outcome = run_check("scaling_laws", chinchilla_beta=0.4, noise=0.0)
    assert [m.passed for m in outcome.measures] == [True, True, False]
    assert outcome.measures[2].ours == pytest.approx(0.4, rel=0.01)
