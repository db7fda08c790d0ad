"""Training and resuming as requests: what the GUI asks the engine for when it starts a run
(``Session.start(TrainRequest(...))``). Torch-free and Qt-free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TrainRequest:
    """A new run of ``config`` (``RunConfig.to_dict``; validated when the run is made)."""

    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResumeRequest:
    """Continue run ``run_id`` from its last checkpoint, in the same run; ``overrides`` like
    ``("train.epochs=20",)`` extend it."""

    run_id: str
    overrides: tuple[str, ...] = ()
