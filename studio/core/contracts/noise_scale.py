"""The gradient noise scale of a trained model (McCandlish et al. 2018): ``studio noise-scale RUN`` and its task
(``engine/tasks/noise_scale.py``). B_simple = tr(Σ)/|G|² estimates the critical batch size: below it a bigger batch
cuts the steps needed almost in proportion, above it barely at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypedDict

from studio.core.errors import ConfigError

MAX_BATCH: Final = 1_000_000
MAX_REPEATS: Final = 10_000


@dataclass(frozen=True)
class NoiseScaleRequest:
    """Measure B_simple of the run in ``run_dir`` at its ``checkpoint`` (final by default) from ``repeats``
    batches of ``batch_size`` (0: as many samples as the run's data has, at most 1024), each split into chunks of
    ``small_batch``."""

    run_dir: str
    batch_size: int = 0
    small_batch: int = 8
    repeats: int = 20
    checkpoint: str = "final"
    seed: int = 0
    device: str = "auto"

    def validate(self) -> None:
        if not 1 <= self.small_batch <= MAX_BATCH:
            raise ConfigError(f"the small batch must be between 1 and {MAX_BATCH}; got {self.small_batch}")
        if self.batch_size and not self.small_batch < self.batch_size <= MAX_BATCH:
            raise ConfigError(f"the batch ({self.batch_size}) must be larger than the small batch "
                              f"({self.small_batch}) and at most {MAX_BATCH}")
        if self.batch_size and self.batch_size % self.small_batch:
            raise ConfigError(f"the batch ({self.batch_size}) must be a multiple of the small batch "
                              f"({self.small_batch})")
        if not 1 <= self.repeats <= MAX_REPEATS:
            raise ConfigError(f"repeats must be between 1 and {MAX_REPEATS}; got {self.repeats}")


class NoiseScaleResult(TypedDict):
    run_id: str
    checkpoint: str
    b_simple: float  # tr(Σ)/|G|²: the critical batch size's estimate (inf when |G|² ≤ 0: at a minimum)
    g2: float  # |G|², the true gradient's squared norm (unbiased estimate)
    trace: float  # tr(Σ), the per-sample gradient covariance's trace
    batch_size: int
    small_batch: int
    repeats: int
    seconds: float


def critical_batch_line(result: NoiseScaleResult) -> str:
    """One sentence for the CLI and the view."""
    b = result["b_simple"]
    if b != b or b in (float("inf"), float("-inf")) or b <= 0:
        return ("the gradient's signal is lost in its noise at this point (|G|² ≈ 0: a minimum), so no critical "
                "batch size can be read here; try an earlier checkpoint")
    return (f"your model's critical batch size ≈ {b:,.0f} (gradient noise scale B_simple, McCandlish et al. 2018; "
            f"{result['repeats']} batches of {result['batch_size']} at {result['checkpoint']})")
