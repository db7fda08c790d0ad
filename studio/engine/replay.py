"""Rebuild a finished (or running) run from its directory: config, model, checkpoints, evaluation data.

Checkpoints are ``run_dir/checkpoints/step_XXXXXXX.pt`` (step 0: the initial weights) and ``final.pt``,
each ``{"model": state_dict, "step", "epoch", "config"}``, loaded with ``weights_only=True``. The data
is rebuilt exactly as the trainer built it (same dataset, seed, validation split and normalisation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from studio.core.config import RunConfig
from studio.core.devices import pick_device
from studio.core.errors import ConfigError, DataError
from studio.core.landscape.directions import Params
from studio.core.maths.objectives import task_losses
from studio.core.vocab import SPLITS
from studio.engine.training.device_data import DeviceData

_STEP = re.compile(r"step_(\d+)\.pt$")


@dataclass(frozen=True)
class CheckpointRef:
    path: Path
    step: int

    @property
    def label(self) -> str:
        return "final" if self.path.name == "final.pt" else f"step {self.step}"


def list_checkpoints(run_dir: str | Path) -> list[CheckpointRef]:
    """The run's ``step_*.pt`` checkpoints in step order (``final.pt`` is not listed: it repeats the last)."""
    folder = Path(run_dir) / "checkpoints"
    refs = [CheckpointRef(p, int(m.group(1))) for p in folder.glob("step_*.pt") if (m := _STEP.search(p.name))]
    return sorted(refs, key=lambda r: r.step)


def list_snapshots(run_dir: str | Path) -> list[CheckpointRef]:
    """The run's float16 weight snapshots (``snapshots/step_*.pt``, engine/callbacks/trajectory_snapshots.py), in step
    order: weights only, for trajectories."""
    folder = Path(run_dir) / "snapshots"
    refs = [CheckpointRef(p, int(m.group(1))) for p in folder.glob("step_*.pt") if (m := _STEP.search(p.name))]
    return sorted(refs, key=lambda r: r.step)


def path_points(run_dir: str | Path) -> list[CheckpointRef]:
    """Every saved point of the training path, for a trajectory: the step checkpoints, and the snapshots at
    steps no checkpoint holds."""
    checkpoints = list_checkpoints(run_dir)
    have = {r.step for r in checkpoints}
    return sorted(checkpoints + [r for r in list_snapshots(run_dir) if r.step not in have], key=lambda r: r.step)


def final_checkpoint(run_dir: str | Path) -> CheckpointRef:
    """``final.pt``, else the latest step checkpoint; DataError when the run saved none."""
    path = Path(run_dir) / "checkpoints" / "final.pt"
    steps = list_checkpoints(run_dir)
    if path.exists():
        return CheckpointRef(path, steps[-1].step if steps else -1)
    if steps:
        return steps[-1]
    raise DataError(f"the run in {run_dir} has no checkpoints yet; a run saves them at its start and end")


def resolve_checkpoint(run_dir: str | Path, which: str | None) -> CheckpointRef:
    """A checkpoint by ``None``/"final", "initial" (step 0), a step number, or a file path."""
    if which in (None, "", "final"):
        return final_checkpoint(run_dir)
    steps = list_checkpoints(run_dir)
    if which == "initial":
        if not steps:
            raise DataError(f"the run in {run_dir} has no step checkpoints")
        return steps[0]
    if str(which).isdigit():
        for ref in steps:
            if ref.step == int(which):
                return ref
        have = ", ".join(str(r.step) for r in steps) or "none"
        raise ConfigError(f"the run has no checkpoint at step {which}; saved steps: {have}")
    path = Path(str(which))
    if path.exists():
        m = _STEP.search(path.name)
        return CheckpointRef(path, int(m.group(1)) if m else -1)
    raise ConfigError(f"unknown checkpoint {which!r}: give final, initial, a step number or a .pt file")


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint, loaded safely (engine/training/checkpoints.py: weights only; one DataError naming a bad file)."""
    from studio.engine.training.checkpoints import load_checkpoint as load

    return load(path)


class RunData:
    """A run's config, its model on ``device`` (eval mode), its data splits and its loss, ready for landscapes.

    The model and the normalised splits come from the engine's own builders (``engine/training/worker.py``), so a
    landscape sees exactly what training saw; the loss is the run's task (cross-entropy and accuracy for
    classification, mean squared error for regression) without label smoothing.
    """

    def __init__(self, run_dir: str | Path, device: str | torch.device = "auto") -> None:
        self.run_dir = Path(run_dir)
        config_path = self.run_dir / "config.toml"
        if not config_path.exists():
            raise ConfigError(f"{run_dir} is not a run directory (no config.toml)")
        self.config = RunConfig.load(config_path)
        self.device = device if isinstance(device, torch.device) else pick_device(device)
        from studio.core.datasets.loading import load_dataset
        from studio.core.maths.objectives import task_for
        from studio.engine.training.augment import attach
        from studio.engine.training.worker import build_model, device_splits

        cfg = self.config
        data = load_dataset(cfg.data, seed=cfg.train.seed)
        self._splits = dict(zip(SPLITS, device_splits(data, cfg, torch.device("cpu")), strict=True))
        attach(cfg.data.params, *self._splits.values())  # sample-wise centering, as the trainer does
        self.classes = list(data.classes)
        self.is_image = data.is_image
        self.input_shape, self.num_classes = data.input_shape, data.num_classes
        self.task = task_for(data.meta)
        self.model = build_model(cfg, data, self.device).eval()

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    @property
    def classification(self) -> bool:
        return bool(self.task.has_accuracy)

    def loss_fns(self) -> dict[str, Any]:
        """``loss_fn`` and ``correct_fn`` keyword arguments for the evaluators (summed over a batch)."""
        return task_losses(self.classification)

    def load_weights(self, ref: CheckpointRef, model: nn.Module | None = None) -> Params:
        """Load the checkpoint into ``model`` (default: this run's model, buffers included) and return its
        parameters (detached, on the device)."""
        model = self.model if model is None else model
        state = load_checkpoint(ref.path)["model"]
        try:
            model.load_state_dict(state)
        except RuntimeError as err:
            raise DataError(f"checkpoint {ref.path} does not fit this run's model: {str(err)[:300]}") from None
        return {n: p.detach().clone() for n, p in model.named_parameters()}

    def has_batch_norm(self) -> bool:
        return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in self.model.modules())

    def split(self, split: str) -> DeviceData:
        """The split as the trainer built it (raw ``x``, ``y``; ``normalise`` applies the training statistics)."""
        if split not in SPLITS:
            raise ConfigError(f"unknown data split {split!r}; choose one of {', '.join(SPLITS)}")
        return self._splits[split]

    def split_size(self, split: str) -> int:
        return len(self._splits[split])

    def eval_data(self, split: str = "train", samples: int = 2000, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """A seeded subset of ``samples`` examples of ``split`` (0: all), normalised, on the device."""
        if split not in SPLITS:
            raise ConfigError(f"unknown data split {split!r}; choose one of {', '.join(SPLITS)}")
        part = self._splits[split]
        if len(part) == 0:
            raise DataError(f"the run's {split} split is empty; pick another split")
        idx = torch.arange(len(part))
        if 0 < samples < len(part):
            idx = torch.randperm(len(part), generator=torch.Generator().manual_seed(seed))[:samples]
        x, y = part.normalise(part.x[idx]), part.y[idx]  # never augmented
        return x.to(self.device), y.to(self.device)

