"""Preparing ``studio train --resume RUN`` (torch-free: the GUI calls it too): which run, which checkpoint,
which settings may change. The run continues in place: same id, same folder, curves continue."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.store import LIVE, RESUMABLE, RunInfo, RunStore
from studio.core.vocab import JobState

# Settings a resumed run may change; anything else would make it another run (start a new one).
CHANGEABLE = ("train.epochs", "train.checkpoint_every", "train.checkpoint_minutes", "train.keep_checkpoints",
              "train.metric_interval", "train.stall_timeout", "train.early_stop_patience", "train.landscape_every",
              "train.sharpness_every", "hardware.threads", "hardware.gpus")


@dataclass
class ResumePlan:
    info: RunInfo
    config: RunConfig
    checkpoint: Path


def plan_resume(store: RunStore, run_ref: str, overrides: list[str] | None = None) -> ResumePlan:
    """The run to continue, its config with ``overrides`` applied, and the checkpoint to start from;
    ConfigError (one line) when it cannot be resumed as asked."""
    info = store.resolve(run_ref)
    if info.status in LIVE or info.status == JobState.QUEUED:
        raise ConfigError(f"run {info.id} is {info.status}; only a stopped, interrupted, pruned, finished or failed "
                          "run can be resumed")
    if info.status not in RESUMABLE:
        raise ConfigError(f"run {info.id} is {info.status} and cannot be resumed")
    checkpoint = info.last_checkpoint
    if checkpoint is None:
        raise ConfigError(f"run {info.id} saved no checkpoint to resume from")
    config = info.run_config
    for item in overrides or []:
        key = item.partition("=")[0].strip()
        if key not in CHANGEABLE:
            raise ConfigError(f"--set {key} cannot change when resuming (it would be another run); changeable: "
                              + ", ".join(CHANGEABLE))
    config = config.with_overrides(list(overrides or []))
    done = int(info.summary.get("epochs") or 0)
    if done > config.train.epochs:
        raise ConfigError(f"run {info.id} has already done {done} epochs; train.epochs={config.train.epochs} is "
                          f"fewer (resume with --set train.epochs=N, N ≥ {done})")
    if info.status == JobState.FINISHED and done >= config.train.epochs:
        raise ConfigError(f"run {info.id} already finished its {done} epochs; extend it with "
                          f"--set train.epochs={done + max(1, done)}")
    return ResumePlan(info, config, checkpoint)
