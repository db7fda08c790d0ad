"""The base of every callback: the hooks the training loop (``engine/loop/trainer.py``) calls, in the order the
run's callbacks were assembled (``engine/callbacks/assemble.py``), and what a callback declares about its place.

A callback declares its ``stage`` (one of ``STAGES``: the assembler sorts by it, keeping the order within a stage),
the callbacks whose hooks must run before its own (``runs_after``: checked, never silently reordered), and, when it
keeps state in checkpoints (``state_dict``/``load_state_dict``), the key of that state (``state_key``; unique in a
run). PyTorch Lightning's callback connector is the model (``_reorder_callbacks``, ``Callback.state_key``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from studio.engine.loop.trainer import Trainer

# The stages in the order the loop calls them, each with why it sits where it does.
STAGES: dict[str, str] = {
    "control": "stop, pause and checkpoint requests: first, so every later hook of the step sees a stop",
    "metrics": "the training curves",
    "regularise": "changes to the gradients before the optimizer step",
    "fine_tune": "changes to what trains",
    "evaluate": "validation each epoch, the test split at the end",
    "stop": "stopping rules, which read the evaluation",
    "observe": "snapshots and probes that write files and change nothing",
    "checkpoint": "the run's state: last, so it holds every other callback's state after its hooks",
}


def every(n: int | float, unit: str) -> str:
    """``"every epoch"``, ``"every 3 epochs"``: a callback's period in its one-line description."""
    return f"every {unit}" if n == 1 else f"every {n:g} {unit}s"


class Callback:
    """Hooks the loop calls; override the ones you need, and declare ``stage`` (and ``state_key`` with state)."""

    stage: ClassVar[str] = ""  # one of STAGES; the assembler refuses a callback without one
    runs_after: ClassVar[tuple[type[Callback], ...]] = ()  # callbacks whose hooks must have run before this one's
    state_key: str | None = None  # its checkpoint state's key (with ``state_dict``); checkpoints on disk use it

    def describe(self) -> str:
        """One line for ``studio train --explain``: what it does, with its settings."""
        return (type(self).__doc__ or type(self).__name__).strip().splitlines()[0]

    def on_train_start(self, trainer: Trainer) -> None: ...
    def on_epoch_start(self, trainer: Trainer) -> None: ...
    def on_after_backward(self, trainer: Trainer) -> None: ...  # gradients ready, before the optimizer step
    def on_step_end(self, trainer: Trainer) -> None: ...
    def on_epoch_end(self, trainer: Trainer) -> None: ...
    def on_stop(self, trainer: Trainer) -> None: ...  # a stop was agreed: what must survive a forced stop, first
    def on_train_end(self, trainer: Trainer) -> None: ...
