"""2-D test functions for the optimizer race, written once for numpy arrays and torch tensors.

Each :class:`TestFunction` evaluates ``f(x, y, xp)`` with ``xp`` = numpy or torch, so the contour grid is
plain numpy (the GUI can draw it without torch) and the race differentiates the same formula with autograd.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from studio.core.errors import ConfigError

NAMES = ("quadratic", "rosenbrock", "beale", "himmelblau", "saddle", "rastrigin")


@dataclass(frozen=True)
class TestFunction:
    """A 2-D function with its plotting box, a start point and its minimum value."""

    name: str
    formula: str
    f: Callable[[Any, Any, ModuleType], Any]
    bounds: tuple[float, float, float, float]  # x_min, x_max, y_min, y_max
    start: tuple[float, float]
    minimum: float  # the global minimum value f*
    minima: tuple[tuple[float, float], ...]
    log_contours: bool = True  # contour levels spaced logarithmically

    __test__ = False  # not a pytest class

    def __call__(self, x: Any, y: Any, xp: ModuleType = np) -> Any:
        return self.f(x, y, xp)

    def grid(self, resolution: int = 160) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(xs, ys, z) with ``z[i, j] = f(xs[j], ys[i])`` over the plotting box."""
        x0, x1, y0, y1 = self.bounds
        xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
        gx, gy = np.meshgrid(xs, ys)
        return xs, ys, np.asarray(self.f(gx, gy, np), dtype=float)

    def levels(self, z: np.ndarray, count: int = 20) -> np.ndarray:
        """Contour levels over the range of ``z``: log-spaced above the minimum for steep functions."""
        lo, hi = float(np.nanmin(z)), float(np.nanpercentile(z, 98))
        if self.log_contours:
            gap = np.geomspace(max((hi - lo) * 1e-4, 1e-9), max(hi - lo, 1e-8), count)
            return lo + gap
        return np.linspace(lo, hi, count + 2)[1:-1]


def quadratic(condition: float = 10.0, lambda_max: float = 1.0) -> TestFunction:
    """The bowl f = ½(λ_min x² + λ_max y²), λ_min = λ_max/κ: curvatures are the Hessian's eigenvalues."""
    if condition < 1:
        raise ConfigError(f"the condition number κ = λ_max/λ_min is at least 1; got {condition}")
    lmin = lambda_max / condition
    return TestFunction(
        "quadratic", f"f = ½({lmin:.3g}·x² + {lambda_max:g}·y²)  (κ = {condition:g})",
        lambda x, y, xp: 0.5 * (lmin * x**2 + lambda_max * y**2),
        (-5.0, 5.0, -3.0, 3.0), (-4.5, 2.0), 0.0, ((0.0, 0.0),),
    )


def _rosenbrock(x: Any, y: Any, xp: ModuleType) -> Any:
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2


def _beale(x: Any, y: Any, xp: ModuleType) -> Any:
    return (1.5 - x + x * y) ** 2 + (2.25 - x + x * y**2) ** 2 + (2.625 - x + x * y**3) ** 2


def _himmelblau(x: Any, y: Any, xp: ModuleType) -> Any:
    return (x**2 + y - 11) ** 2 + (x + y**2 - 7) ** 2


def _saddle(x: Any, y: Any, xp: ModuleType) -> Any:
    return x**2 + 0.25 * (y**2 - 1) ** 2


def _rastrigin(x: Any, y: Any, xp: ModuleType) -> Any:
    return 20 + x**2 - 10 * xp.cos(2 * math.pi * x) + y**2 - 10 * xp.cos(2 * math.pi * y)


FIXED = {
    "rosenbrock": TestFunction("rosenbrock", "f = (1 − x)² + 100(y − x²)²  (Rosenbrock 1960)", _rosenbrock,
                               (-2.0, 2.0, -1.0, 3.0), (-1.5, 2.0), 0.0, ((1.0, 1.0),)),
    "beale": TestFunction("beale", "f = (1.5 − x + xy)² + (2.25 − x + xy²)² + (2.625 − x + xy³)²  (Beale 1958)",
                          _beale, (-4.5, 4.5, -4.5, 4.5), (2.0, -1.0), 0.0, ((3.0, 0.5),)),
    "himmelblau": TestFunction("himmelblau", "f = (x² + y − 11)² + (x + y² − 7)²  (Himmelblau 1972)", _himmelblau,
                               (-5.0, 5.0, -5.0, 5.0), (-0.5, -0.5), 0.0,
                               ((3.0, 2.0), (-2.805118, 3.131312), (-3.779310, -3.283186), (3.584428, -1.848126))),
    "saddle": TestFunction("saddle", "f = x² + ¼(y² − 1)²: a saddle at the origin, minima at (0, ±1)", _saddle,
                           (-2.0, 2.0, -1.8, 1.8), (-1.8, 1e-3), 0.0, ((0.0, 1.0), (0.0, -1.0)), log_contours=False),
    "rastrigin": TestFunction("rastrigin", "f = 20 + Σ (x_i² − 10 cos 2πx_i)  (Rastrigin 1974): many local minima",
                              _rastrigin, (-5.12, 5.12, -5.12, 5.12), (3.7, -3.3), 0.0, ((0.0, 0.0),),
                              log_contours=False),
}


def get_function(name: str, condition: float = 10.0) -> TestFunction:
    """The test function ``name`` (``condition`` is the quadratic bowl's κ)."""
    if name == "quadratic":
        return quadratic(condition)
    try:
        return FIXED[name]
    except KeyError:
        raise ConfigError(f"unknown test function {name!r}; choose one of {', '.join(NAMES)}") from None
