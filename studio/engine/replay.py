"""Rebuild a finished (or running) run from its directory: config, model, checkpoints, evaluation data.

Checkpoints (core/contracts/layout.py lists them: ``checkpoints/step_XXXXXXX.pt``, step 0 the initial weights, and
``final.pt``) are each ``{"model": state_dict, "step", "epoch", "config"}``, loaded with ``weights_only=True``. The data
is rebuilt exactly as the trainer built it (same dataset, seed, validation split and normalisation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from studio.core.config import RunConfig
from studio.core.config.external import is_external
from studio.core.contracts import layout
from studio.core.contracts.layout import (  # noqa: F401 - the checkpoint listing, read here by the engine
    CheckpointRef,
    final_checkpoint,
    list_checkpoints,
    list_snapshots,
    path_points,
    resolve_checkpoint,
)
from studio.core.errors import ConfigError, DataError
from studio.core.host.devices import pick_device
from studio.core.landscape.directions import Params
from studio.core.maths.objectives import TaskLosses, losses_of
from studio.core.vocab import SPLITS
from studio.engine.loop.device_data import DeviceData


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint, loaded safely (engine/loop/checkpoints.py: weights only; one DataError naming a bad file)."""
    from studio.engine.loop.checkpoints import load_checkpoint as load

    return load(path)


class RunData:
    """A run's config, its model on ``device`` (eval mode), its data splits and its loss, ready for landscapes.

    The model and the normalised splits come from the engine's own builders (``engine/training/worker.py``), so a
    landscape sees exactly what training saw; the loss is the run's task (cross-entropy and accuracy for
    classification, mean squared error for regression) without label smoothing.
    """

    def __init__(self, run_dir: str | Path, device: str | torch.device = "auto") -> None:
        self.run_dir = Path(run_dir)
        config_path = layout.config_path(self.run_dir)
        if not config_path.exists():
            raise ConfigError(f"{run_dir} is not a run directory (no config.toml)")
        self.config = RunConfig.load(config_path)
        self.device = device if isinstance(device, torch.device) else pick_device(device)
        if is_external(self.config):  # trained outside Studio: its attached model and batch
            self._attach()
            return
        from studio.core.maths.objectives import task_for
        from studio.core.runs.lineage import load_run_data
        from studio.engine.loop.augment import attach
        from studio.engine.training.worker import build_model, device_splits

        cfg = self.config
        data = load_run_data(cfg, run_dir=self.run_dir)  # what the run keeps of a parent run, never the parent
        self._splits = dict(zip(SPLITS, device_splits(data, cfg, torch.device("cpu")), strict=True))
        attach(cfg.data.params, *self._splits.values())  # sample-wise centering, as the trainer does
        self.classes = list(data.classes)
        self.is_image = data.is_image
        self.input_shape, self.num_classes = data.input_shape, data.num_classes
        self.task = task_for(data.meta)
        self.task_name = str(data.meta.get("task", "classification"))  # "tokens": a prediction at every position
        self.meta: dict[str, Any] = dict(data.meta)  # what the dataset knows of itself (a corpus: its unigram)
        self.model = build_model(cfg, data, self.device).eval()

    def _attach(self) -> None:
        """A model trained elsewhere (core/models/attached.py): its batch is every split, used as the model saw it."""
        from studio.core.maths.objectives import task_for
        from studio.core.models import attached

        meta = attached.read_meta(self.run_dir)
        x, y = attached.load_data(self.run_dir)
        part = DeviceData(x, y, torch.zeros(1), torch.ones(1), torch.device("cpu"))
        self._splits = dict.fromkeys(SPLITS, part)
        task = meta.get("task") or attached.task_of(x, y)
        self.task = task_for({"task": "regression"} if task == attached.REGRESSION else {})
        self.task_name = "regression" if task == attached.REGRESSION else "classification"
        self.meta = {}  # no dataset of Studio's behind it
        self.is_image = x.dim() == 4
        self.input_shape = tuple(x.shape[1:])
        self.num_classes = int(y.max()) + 1 if task == attached.CLASSIFICATION and len(y) else 1
        self.classes = [str(i) for i in range(self.num_classes)]
        self.model = attached.build_model(self.run_dir).to(self.device).eval()

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    @property
    def classification(self) -> bool:
        return bool(self.task.has_accuracy)

    def loss_fns(self) -> TaskLosses:
        """``loss_fn`` and ``correct_fn`` keyword arguments for the evaluators (summed over a batch)."""
        return losses_of(self.task)

    def load_weights(self, ref: CheckpointRef, model: nn.Module | None = None) -> Params:
        """Load the checkpoint into ``model`` (default: this run's model, buffers included) and return its
        parameters (detached, on the device)."""
        model = self.model if model is None else model
        state = load_checkpoint(ref.path)["model"]
        from studio.engine.loop.checkpoints import load_weights_into

        load_weights_into(model, state, ref.path)
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

