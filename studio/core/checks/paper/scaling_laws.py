"""Scaling laws: points drawn from Kaplan et al.'s L(N) and Chinchilla's L(N, D) are fitted back to their exponents
by Studio's own fitting code (``core/maths/scaling_fit.py``, the Scaling-laws tab's)."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

KAPLAN_ALPHA, KAPLAN_NC = 0.076, 8.8e13
CHINCHILLA = {"e": 1.69, "a": 406.4, "b": 410.7, "alpha": 0.34, "beta": 0.28}
BAND = 0.10  # a fitted exponent must be within 10 % of the published one

CHECK = PaperCheck(
    name="scaling_laws",
    claim="Studio's scaling-law fits recover the published exponents: Kaplan's α_N = 0.076 from L(N), and "
          "Chinchilla's α = 0.34, β = 0.28 from L(N, D).",
    paper="Kaplan et al., Scaling Laws for Neural Language Models (2020); Hoffmann et al., Training "
          "Compute-Optimal Large Language Models (2022)",
    paper_setup="Kaplan: L(N) = (N_c/N)^α_N with α_N = 0.076, N_c = 8.8e13, fitted to language models of 768 to "
                "1.5e9 non-embedding parameters. Chinchilla (approach 3): L(N, D) = E + A/N^α + B/D^β with "
                "E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28, fitted (Huber loss on log L, L-BFGS from a "
                "grid of starts) to over 400 runs of 70M to 16B parameters on 5B to 500B tokens.",
    our_setup="No training: synthetic points from the papers' own laws with 1 % seeded multiplicative noise — "
              "Kaplan at 14 sizes from 1e3 to 1e9 parameters, fitted with the Scaling-laws tab's L = a·N^(−b) + c; "
              "Chinchilla on a 9 × 9 grid of N = 1e7…1e11 and D = 1e8…1e12 (81 points), fitted by "
              "scaling_fit.fit_chinchilla (the paper's Huber/L-BFGS method, 108 starts instead of their grid). "
              "Pass: each fitted exponent within 10 % of the published one. What is scaled down: the runs "
              "themselves (this checks the fitting, not a training).",
    runner="studio.core.checks.paper.scaling_laws:run",
    demos=(),
    budget_s=30.0,
)


def run(progress: Any = None, kaplan_alpha: float = KAPLAN_ALPHA, chinchilla_alpha: float = CHINCHILLA["alpha"],
        chinchilla_beta: float = CHINCHILLA["beta"], noise: float = 0.01, seed: int = 0,
        chinchilla: bool = True) -> Reproduction:
    """``kaplan_alpha``, ``chinchilla_alpha``/``chinchilla_beta``: the exponents the points are drawn with (the
    published ones by default; another value must FAIL); ``noise``: the multiplicative noise's σ;
    ``chinchilla=False`` fits Kaplan's law only (a quick test; the check then has one measure)."""
    import numpy as np

    from studio.core.maths.scaling_fit import chinchilla_law, fit_chinchilla, fit_power_law

    rng = np.random.default_rng(seed)
    if progress:
        progress(0.0, "Kaplan: fitting L(N)")
    n = np.geomspace(1e3, 1e9, 14)
    kaplan_loss = (KAPLAN_NC / n) ** kaplan_alpha * np.exp(noise * rng.standard_normal(len(n)))
    kaplan = fit_power_law(n, kaplan_loss)
    measures = [Measure.within("Kaplan α_N (fitted exponent of N)", kaplan.b, KAPLAN_ALPHA * (1 - BAND),
                               KAPLAN_ALPHA * (1 + BAND), f"α_N = {KAPLAN_ALPHA}")]
    details: dict[str, Any] = {"kaplan": {"alpha": kaplan.b, "a": kaplan.a, "floor": kaplan.c, "r2": kaplan.r2}}
    if chinchilla:
        if progress:
            progress(0.2, "Chinchilla: fitting L(N, D)")
        nn, dd = (g.ravel() for g in np.meshgrid(np.geomspace(1e7, 1e11, 9), np.geomspace(1e8, 1e12, 9)))
        truth = {**CHINCHILLA, "alpha": chinchilla_alpha, "beta": chinchilla_beta}
        chin_loss = chinchilla_law(nn, dd, **truth) * np.exp(noise * rng.standard_normal(len(nn)))
        chin = fit_chinchilla(nn, dd, chin_loss)
        for label, ours, key in (("Chinchilla α (exponent of N)", chin.alpha, "alpha"),
                                 ("Chinchilla β (exponent of D)", chin.beta, "beta")):
            published = CHINCHILLA[key]
            measures.append(Measure.within(label, ours, published * (1 - BAND), published * (1 + BAND),
                                           f"{'α' if key == 'alpha' else 'β'} = {published}"))
        details["chinchilla"] = {"e": chin.e, "a": chin.a, "b": chin.b, "alpha": chin.alpha, "beta": chin.beta,
                                 "r2": chin.r2}
    if progress:
        progress(1.0, "fitted")
    return Reproduction(tuple(measures), details)
