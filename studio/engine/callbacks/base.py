"""The base of every callback: the hooks the training loop (``engine/loop/trainer.py``) calls, in the order the
run's callbacks were assembled."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.engine.loop.trainer import Trainer


class Callback:
    """Hooks the loop calls; override the ones you need."""

    def on_train_start(self, trainer: Trainer) -> None: ...
    def on_epoch_start(self, trainer: Trainer) -> None: ...
    def on_after_backward(self, trainer: Trainer) -> None: ...  # gradients ready, before the optimizer step
    def on_step_end(self, trainer: Trainer) -> None: ...
    def on_epoch_end(self, trainer: Trainer) -> None: ...
    def on_train_end(self, trainer: Trainer) -> None: ...
