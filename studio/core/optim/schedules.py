"""Learning-rate schedules as step → factor functions (multiplying the optimizer's base rate)."""

from __future__ import annotations

import math
from typing import Callable

Schedule = Callable[[int], float]


def _warm(factor: Schedule, warmup_steps: int) -> Schedule:
    if warmup_steps <= 0:
        return factor
    return lambda step: min(1.0, (step + 1) / warmup_steps) * factor(step)


def constant(total_steps: int, warmup_steps: int = 0) -> Schedule:
    return _warm(lambda step: 1.0, warmup_steps)


def cosine(total_steps: int, warmup_steps: int = 0, final_fraction: float = 0.0) -> Schedule:
    span = max(1, total_steps - warmup_steps)

    def factor(step: int) -> float:
        t = min(1.0, max(0, step - warmup_steps) / span)
        return final_fraction + (1 - final_fraction) * 0.5 * (1 + math.cos(math.pi * t))

    return _warm(factor, warmup_steps)
