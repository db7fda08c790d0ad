"""The learning-rate range test (Smith 2017; Lightning's ``Tuner.lr_find``): ``studio lr-find`` and the Search view's
finder run it (``engine/tasks/lr_find.py``) on a fresh model built from a config — nothing is kept. Where the config
trains on a GPU it can also find the largest batch that fits in its memory (Lightning's batch-size finder)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from studio.core.errors import ConfigError

MAX_STEPS = 100_000


@dataclass(frozen=True)
class LrFindRequest:
    """Ramp the learning rate from ``start_lr`` to ``end_lr`` over ``steps`` optimizer steps (log-spaced) on the
    config's model, data and optimizer (``config``: its TOML); ``find_batch``: also the largest batch that fits
    (CUDA only)."""

    config: str
    start_lr: float = 1e-7
    end_lr: float = 10.0
    steps: int = 200
    find_batch: bool = False

    def validate(self) -> None:
        if not (self.start_lr > 0 and self.end_lr > 0):
            raise ConfigError(f"the learning rates of the range test must be above 0; got {self.start_lr:g} and "
                              f"{self.end_lr:g}")
        if self.start_lr >= self.end_lr:
            raise ConfigError(f"the range test goes up: its start ({self.start_lr:g}) must be below its end "
                              f"({self.end_lr:g})")
        if not 10 <= self.steps <= MAX_STEPS:
            raise ConfigError(f"the range test takes 10 to {MAX_STEPS} steps; got {self.steps}")


class LrSuggestion(TypedDict):
    steepest: float | None  # the steepest descent of the smoothed loss (per decade of lr)
    min_over_10: float | None  # the rate at the smoothed loss's minimum, ÷ 10
    steepest_index: int | None
    min_index: int | None


class LrFindResult(TypedDict):
    lrs: list[float]
    losses: list[float]
    smoothed: list[float]
    suggestion: LrSuggestion
    steps: int  # steps taken (fewer than asked when the loss blew up)
    stopped_early: bool
    batch_size: int
    optimizer: str
    device: str
    max_batch: int | None  # the largest batch that fits in the GPU's memory (find_batch on CUDA), else None
    max_batch_note: str
    seconds: float


def suggestion_line(result: LrFindResult) -> str:
    """One sentence for the CLI and the view."""
    s = result["suggestion"]
    if s["steepest"] is None and s["min_over_10"] is None:
        return ("no suggestion: the loss never fell along the ramp; start the ramp lower or check the data and "
                "model")
    parts = []
    if s["steepest"] is not None:
        parts.append(f"{s['steepest']:.3g} (steepest descent)")
    if s["min_over_10"] is not None:
        parts.append(f"{s['min_over_10']:.3g} (minimum ÷ 10)")
    return f"suggested learning rate for {result['optimizer']}: " + "; ".join(parts)
