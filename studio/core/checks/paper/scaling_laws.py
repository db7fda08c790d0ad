"""A method check, not a reproduction: Studio's scaling-law fitter (``core/maths/scaling_fit.py``, the Scaling-laws
tab's) recovers the exponents of points drawn from a known law — Kaplan et al.'s L(N) and Chinchilla's L(N, D) —
whatever exponents they were drawn with. It tests Studio's fitting code, not the papers' claims."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import METHOD_CHECK, Measure, PaperCheck, Reproduction
from studio.core.checks.stats import over_seeds, repeat, seeds_of

KAPLAN_ALPHA, KAPLAN_NC = 0.076, 8.8e13
CHINCHILLA = {"e": 1.69, "a": 406.4, "b": 410.7, "alpha": 0.34, "beta": 0.28}
BAND_PCT = 10.0  # a fitted exponent's error: within 10 % of the exponent the points were drawn with (95 % bound)
DRAWS = 3  # noise draws (seeds 0, 1, 2)

CHECK = PaperCheck(
    name="scaling_laws",
    claim="Studio's scaling-law fitter recovers the exponents of points drawn from a known law with 1 % "
          "noise — Kaplan's L(N) = (N_c/N)^α_N and Chinchilla's L(N, D) = E + A/N^α + B/D^β — within 10 % (it "
          "tests the fitter, not the papers' claims).",
    paper="Kaplan et al., Scaling Laws for Neural Language Models (2020); Hoffmann et al., Training "
          "Compute-Optimal Large Language Models (2022)",
    paper_setup="Kaplan: L(N) = (N_c/N)^α_N with α_N = 0.076, N_c = 8.8e13, fitted to language models of 768 to "
                "1.5e9 non-embedding parameters. Chinchilla (approach 3): L(N, D) = E + A/N^α + B/D^β with "
                "E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28, fitted (Huber loss on log L, L-BFGS from a "
                "grid of starts) to over 400 runs of 70M to 16B parameters on 5B to 500B tokens. Their exponents "
                "are used here only as the laws the points are drawn from.",
    our_setup="No training, so no reproduction of either paper: synthetic points from the laws (the papers' "
              "exponents by default, any others by setting) with 1 % seeded multiplicative noise — Kaplan at 14 "
              "sizes from 1e3 to 1e9 parameters, fitted with the Scaling-laws tab's L = a·N^(−b) + c; Chinchilla "
              "on a 9 × 9 grid of N = 1e7…1e11 and D = 1e8…1e12 (81 points), fitted by scaling_fit.fit_chinchilla "
              f"(the paper's Huber/L-BFGS method, 108 starts instead of their grid). {DRAWS} noise draws (seeds); "
              "per exponent the relative error of the fit against the exponent drawn with, mean ± s.e. over the "
              f"draws, below {BAND_PCT:g} % with a one-sided 95 % margin (Student's t).",
    runner="studio.core.checks.paper.scaling_laws:run",
    demos=(),
    budget_s=60.0,
    kind=METHOD_CHECK,
)


def run(progress: Any = None, kaplan_alpha: float = KAPLAN_ALPHA, chinchilla_alpha: float = CHINCHILLA["alpha"],
        chinchilla_beta: float = CHINCHILLA["beta"], noise: float = 0.01, seed: int = 0, seeds: int = DRAWS,
        chinchilla: bool = True) -> Reproduction:
    """``kaplan_alpha``, ``chinchilla_alpha``/``chinchilla_beta``: the exponents the points are drawn with (the
    published ones by default; others must PASS too); ``noise``: the multiplicative noise's σ (0.3: too noisy to
    pin an exponent to 10 %, a broken set-up); ``chinchilla=False`` fits Kaplan's law only (a quick test; the check
    then has one measure)."""
    truth = {"Kaplan α_N": kaplan_alpha}
    if chinchilla:
        truth |= {"Chinchilla α": chinchilla_alpha, "Chinchilla β": chinchilla_beta}
    draws = repeat(lambda s, p: _fit(s, p, kaplan_alpha, chinchilla_alpha, chinchilla_beta, noise, chinchilla),
                   seeds_of(seed, seeds), progress)
    measures = []
    for key, drawn in truth.items():
        errors = over_seeds(100 * abs(d[key] - drawn) / drawn for d in draws)
        symbol = key.split()[-1]
        measures.append(Measure.below(f"{key}: |fitted − drawn| ÷ drawn (%), drawn {symbol} = {drawn:g}", errors,
                                      BAND_PCT, f"{symbol} = {_published(key)} (the law's exponent; not measured)"))
    details: dict[str, Any] = {"seeds": list(seeds_of(seed, seeds)), "drawn": truth, "fits": draws}
    return Reproduction(tuple(measures), details)


def _published(key: str) -> float:
    return {"Kaplan α_N": KAPLAN_ALPHA, "Chinchilla α": CHINCHILLA["alpha"], "Chinchilla β": CHINCHILLA["beta"]}[key]


def _fit(seed: int, progress: Any, kaplan_alpha: float, chinchilla_alpha: float, chinchilla_beta: float,
         noise: float, chinchilla: bool) -> dict[str, Any]:
    """One noise draw: both laws' points, fitted back."""
    import numpy as np

    from studio.core.demos.common import report
    from studio.core.maths.scaling_fit import chinchilla_law, fit_chinchilla, fit_power_law

    rng = np.random.default_rng(seed)
    report(progress, 0.0, "Kaplan: fitting L(N)")
    n = np.geomspace(1e3, 1e9, 14)
    kaplan = fit_power_law(n, (KAPLAN_NC / n) ** kaplan_alpha * np.exp(noise * rng.standard_normal(len(n))))
    out: dict[str, Any] = {"seed": seed, "Kaplan α_N": float(kaplan.b), "kaplan": {"a": kaplan.a, "floor": kaplan.c,
                                                                                   "r2": kaplan.r2}}
    if chinchilla:
        report(progress, 0.2, "Chinchilla: fitting L(N, D)")
        nn, dd = (g.ravel() for g in np.meshgrid(np.geomspace(1e7, 1e11, 9), np.geomspace(1e8, 1e12, 9)))
        law = {**CHINCHILLA, "alpha": chinchilla_alpha, "beta": chinchilla_beta}
        chin = fit_chinchilla(nn, dd, chinchilla_law(nn, dd, **law) * np.exp(noise * rng.standard_normal(len(nn))))
        out |= {"Chinchilla α": float(chin.alpha), "Chinchilla β": float(chin.beta),
                "chinchilla": {"e": chin.e, "a": chin.a, "b": chin.b, "r2": chin.r2}}
    report(progress, 1.0, "fitted")
    return out
