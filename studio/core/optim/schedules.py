"""Learning-rate schedules as step → factor functions (multiplying the optimizer's base rate).

The worker wraps them in ``torch.optim.lr_scheduler.LambdaLR``: optimizer step t (from 0) uses
η·factor(t). Every builder takes the run's ``total_steps`` and ``steps_per_epoch`` (for schedules
counted in epochs) and its own parameters; ``warmup_steps`` composes a linear warm-up with any of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

Schedule = Callable[[int], float]


def _warm(factor: Schedule, warmup_steps: int) -> Schedule:
    """factor(t) × min(1, (t+1)/T_w): a linear warm-up in front of any schedule."""
    if warmup_steps <= 0:
        return factor
    return lambda step: min(1.0, (step + 1) / warmup_steps) * factor(step)


def constant(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0) -> Schedule:
    return _warm(lambda step: 1.0, warmup_steps)


def step(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, step_epochs: int = 10,
         gamma: float = 0.1) -> Schedule:
    every = max(1, step_epochs * steps_per_epoch)
    return _warm(lambda t: gamma ** (t // every), warmup_steps)


def exponential(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, gamma: float = 0.95) -> Schedule:
    per_epoch = max(1, steps_per_epoch)
    return _warm(lambda t: gamma ** (t / per_epoch), warmup_steps)


def cosine(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, final_fraction: float = 0.0) -> Schedule:
    span = max(1, total_steps - warmup_steps)

    def factor(t: int) -> float:
        progress = min(1.0, max(0, t - warmup_steps) / span)
        return final_fraction + (1 - final_fraction) * 0.5 * (1 + math.cos(math.pi * progress))

    return _warm(factor, warmup_steps)


def inverse_sqrt(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, timescale: int = 100) -> Schedule:
    return _warm(lambda t: 1.0 / math.sqrt(1 + t / timescale), warmup_steps)


def wsd(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, cooldown_fraction: float = 0.2) -> Schedule:
    """Warmup-stable-decay: 1 until T(1−c), then (T − t)/(cT), reaching 0 at t = T."""
    cooldown = cooldown_fraction * total_steps
    start = total_steps - cooldown

    def factor(t: int) -> float:
        if t < start or cooldown <= 0:
            return 1.0
        return max(0.0, (total_steps - t) / cooldown)

    return _warm(factor, warmup_steps)


def poly(total_steps: int, steps_per_epoch: int = 1, warmup_steps: int = 0, power: float = 1.0) -> Schedule:
    """Polynomial decay to zero over the steps after the warm-up: (1 − (t − T_w)/(T − T_w))^p (You et al. 2020)."""
    span = max(1, total_steps - warmup_steps)
    return _warm(lambda t: max(0.0, 1 - max(0, t - warmup_steps) / span) ** power, warmup_steps)


def one_cycle(total_steps: int, steps_per_epoch: int = 1, pct_start: float = 0.3, div_factor: float = 25.0,
              final_div_factor: float = 1e4) -> Schedule:
    """torch's OneCycleLR (cosine annealing, two phases) as a factor of the peak rate."""
    start, low = 1 / div_factor, 1 / (div_factor * final_div_factor)
    rise_end = pct_start * total_steps - 1
    last = max(total_steps - 1, rise_end + 1)

    def cos_anneal(a: float, b: float, pct: float) -> float:
        return b + (a - b) / 2 * (math.cos(math.pi * pct) + 1)

    def factor(t: int) -> float:
        if t <= rise_end:
            return cos_anneal(start, 1.0, t / rise_end) if rise_end > 0 else 1.0
        return cos_anneal(1.0, low, min(1.0, (t - rise_end) / (last - rise_end)))

    return factor
