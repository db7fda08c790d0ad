"""Stopping rules as callbacks: early stopping on the validation loss, and the convergence check
of full-batch gradient descent. Both end the run as finished, with the reason in its message."""

from __future__ import annotations

import math

from studio.engine.callbacks.base import Callback
from studio.engine.callbacks.builtin import Evaluator
from studio.engine.loop.trainer import Trainer


class EarlyStopping(Callback):
    """Stop when the validation loss (the training loss without a validation split) has not improved
    by more than ``min_delta`` for ``patience`` epochs (Prechelt 1998). Runs after the Evaluator."""

    stage = "stop"
    runs_after = (Evaluator,)  # it reads the epoch's validation loss from the summary
    state_key = "EarlyStopping"

    def __init__(self, patience: int, min_delta: float = 0.0) -> None:
        self.patience, self.min_delta = patience, min_delta
        self.best = math.inf
        self.waited = 0

    def describe(self) -> str:
        return (f"stops when the validation loss has not improved by more than {self.min_delta:g} for "
                f"{self.patience} epoch{'s' if self.patience != 1 else ''}")

    def state_dict(self) -> dict[str, float]:
        return {"best": self.best, "waited": self.waited}

    def load_state_dict(self, state: dict[str, float]) -> None:
        self.best, self.waited = float(state["best"]), int(state["waited"])

    def on_epoch_end(self, t: Trainer) -> None:
        val = t.summary.get("val_loss", math.nan)
        name, value = ("validation loss", val) if not math.isnan(val) else ("training loss", t.summary["train_loss"])
        if value < self.best - self.min_delta:
            self.best, self.waited = value, 0
            return
        self.waited += 1
        if self.waited >= self.patience:
            t.request_stop(f"early stopping after epoch {t.epoch + 1}: the {name} has not improved by more than "
                           f"{self.min_delta:g} for {self.patience} epochs (best {self.best:.4g})")


class ConvergenceCheck(Callback):
    """Full-batch gradient descent: stop when |F_t − F_{t−1}| < tolerance (one step per epoch)."""

    stage = "stop"
    state_key = "ConvergenceCheck"

    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.previous: float | None = None

    def describe(self) -> str:
        return f"stops when the full-batch loss changes by less than {self.tolerance:g} in an epoch"

    def state_dict(self) -> dict[str, float | None]:
        return {"previous": self.previous}

    def load_state_dict(self, state: dict[str, float | None]) -> None:
        self.previous = state.get("previous")

    def on_epoch_end(self, t: Trainer) -> None:
        loss_sum, _, count = t.reduce(t.epoch_sums).tolist()
        loss = loss_sum / max(count, 1)
        if self.previous is not None and abs(loss - self.previous) < self.tolerance:
            t.request_stop(f"converged at step {t.step}: the loss changed by {abs(loss - self.previous):.3g}, "
                           f"less than the tolerance {self.tolerance:g}")
        self.previous = loss
