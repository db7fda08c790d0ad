"""Weight snapshots for trajectory landscapes, kept by every run (train.trajectory_snapshots, default on).

A trajectory plot (PCA of the path in weight space, Li et al. 2018 §7) needs a few points along the path;
checkpoints alone give only the start and the end by default (train.checkpoint_every = 0) and keep-last-N
pruning may drop the start. So the run keeps, beside its checkpoints, the model weights alone in float16 at
the start and at up to ``MAX_SNAPSHOTS`` evenly spaced epoch ends: ``run_dir/snapshots/step_XXXXXXX.pt``,
``{"model": state_dict, "step", "epoch"}``, the checkpoint format without optimizer or resume state (so
nothing resumes from them), written atomically. For the default MLP (0.67 M parameters) a snapshot is
1.3 MB; models over ``MAX_PARAMS`` parameters keep none (their trajectory needs train.checkpoint_every).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from studio.core.contracts import layout
from studio.engine.callbacks.base import Callback
from studio.engine.callbacks.builtin import Control
from studio.engine.callbacks.stopping import ConvergenceCheck, EarlyStopping
from studio.engine.loop.trainer import Trainer

MAX_SNAPSHOTS = 10  # epoch ends kept besides the start: enough points for a PCA path
MAX_PARAMS = 30_000_000  # above this the snapshots would cost more than they teach


def snapshot_epochs(epochs: int, most: int = MAX_SNAPSHOTS) -> set[int]:
    """The epochs (1-based) after which a snapshot is kept: evenly spaced, the last epoch left to final.pt."""
    inner = list(range(1, epochs))  # the last epoch's weights are the run's final checkpoint
    if len(inner) <= most:
        return set(inner)
    every = math.ceil(len(inner) / most)
    return set(inner[every - 1::every])


class TrajectorySnapshots(Callback):
    """Keeps float16 weight snapshots for trajectory landscapes (rank 0 writes)."""

    stage = "observe"
    runs_after = (Control, EarlyStopping, ConvergenceCheck)  # it skips the epoch a stop ends (final.pt has it)

    def __init__(self, run_dir: str | Path, epochs: int) -> None:
        self.dir = layout.snapshots_dir(run_dir)
        self.epochs = snapshot_epochs(epochs)
        self.enabled = epochs >= 2

    def describe(self) -> str:
        if not self.enabled:
            return "float16 weight snapshots for trajectory landscapes (none: a run of one epoch has final.pt only)"
        ends = ", ".join(str(e) for e in sorted(self.epochs))
        return f"float16 weight snapshots for trajectory landscapes at the start and after epochs {ends or '-'}"

    def _save(self, t: Trainer) -> None:
        from studio.engine.loop.checkpoints import atomic_save

        if not t.ctx.is_main:
            return
        state = {k: (v.detach().half() if v.is_floating_point() else v.detach()).cpu()
                 for k, v in t.net.state_dict().items()}
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_save({"model": state, "step": t.step, "epoch": t.epochs_done}, self.dir / layout.step_name(t.step))

    def on_train_start(self, t: Trainer) -> None:
        params = sum(p.numel() for p in t.net.parameters())
        self.enabled = self.enabled and params <= MAX_PARAMS
        if self.enabled and not getattr(t, "resumed", False):
            self._save(t)

    def on_epoch_end(self, t: Trainer) -> None:
        if self.enabled and t.epoch + 1 in self.epochs and not t.should_stop:
            self._save(t)


def snapshot_callbacks(cfg: Any, run_dir: str | Path) -> list[Callback]:
    """The snapshot keeper when ``train.trajectory_snapshots`` is on and the run has a directory."""
    if run_dir and getattr(cfg.train, "trajectory_snapshots", True):
        return [TrajectorySnapshots(run_dir, cfg.train.epochs)]
    return []
