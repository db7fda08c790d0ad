"""GD on a quadratic converges below η = 2/λ_max and diverges above it; Newton lands in one step."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

CHECK = PaperCheck(
    name="quadratic_gd_newton",
    claim="On a quadratic, gradient descent converges when η < 2/λ_max and diverges above it; Newton's method "
          "reaches the minimum in one step.",
    paper="Nocedal & Wright, Numerical Optimization (2006), ch. 3; Cauchy 1847",
    paper_setup="f = ½ wᵀHw: GD multiplies each eigen-direction by (1 − ηλ_i) per step, so it converges iff "
                "η < 2/λ_max; Newton's step −H⁻¹∇f is exact on a quadratic (1 step).",
    our_setup="The optimizer race on the quadratic bowl with condition number 10 (λ_max = 1, so 2/λ_max = 2), "
              "float64: GD at η = 0.95·2/λ_max and 1.05·2/λ_max, and Newton, 200 steps each, tolerance 1e-6. "
              "Nothing scaled down: this is the textbook case itself.",
    runner="studio.core.checks.paper.quadratic_gd_newton:run",
    demos=("optimizer_race",),
    budget_s=10.0,
    preset={"function": "quadratic", "condition": 10.0, "optimizers": "gd(lr=1.9); gd(lr=2.1); newton"},
)


def run(progress: Any = None, below: float = 0.95, above: float = 1.05, condition: float = 10.0,
        steps: int = 200) -> Reproduction:
    """``below``/``above``: GD's learning rates as multiples of 2/λ_max (λ_max = 1 for the race's bowl)."""
    from studio.core.demos.race import run as race

    lr_lo, lr_hi = 2.0 * below, 2.0 * above
    spec = f"gd(lr={lr_lo}); gd(lr={lr_hi}); newton"
    result = race(function="quadratic", condition=condition, optimizers=spec, steps=steps, progress=progress)
    racers = result["summary"]["optimizers"]
    slow, fast, newton = (racers[label] for label in result["labels"])
    measures = (
        Measure.holds(f"GD at η = {lr_lo:g} (below 2/λ_max): steps to 1e-6", _steps(slow),
                      slow["diverged_at"] is None and isinstance(slow["steps_to_tol"], int),
                      "converges (η < 2/λ_max)", "converges"),
        Measure.holds(f"GD at η = {lr_hi:g} (above 2/λ_max): step it diverged at", fast["diverged_at"],
                      fast["diverged_at"] is not None, "diverges (η > 2/λ_max)", "diverges"),
        Measure.holds("Newton: steps to 1e-6", _steps(newton), newton["steps_to_tol"] == 1, "1 step", "= 1"),
    )
    details: dict[str, Any] = {"gaps": {label: [float(g) for g in gaps[:60]]
                                        for label, gaps in zip(result["labels"], result["gaps"], strict=True)}}
    return Reproduction(measures, details)


def _steps(racer: dict[str, Any]) -> float | None:
    value = racer["steps_to_tol"]
    return float(value) if isinstance(value, int) else None
