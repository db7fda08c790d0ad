"""``studio attach``: register a model trained elsewhere with a run Studio did not train (a tracked run, an imported
TensorBoard run, or a new one): its code file copied, its class and arguments, its weights as the run's checkpoint,
and a batch of its data, as ``studio.track``'s ``run.save_model`` does (core/models/attached.py reads them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import torch

from studio.core.config.external import is_external
from studio.core.config.run_config import RunConfig
from studio.core.contracts import layout
from studio.core.errors import ConfigError, DataError
from studio.core.models import attached
from studio.core.usercode.trust import trust_copy


def parse_model(spec: str) -> tuple[Path, str]:
    """``file.py:Class`` → (the file, the class name); ConfigError in words otherwise."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise ConfigError(f"give the model as FILE.py:CLASS (e.g. net.py:Net); got {spec!r}")
    file = Path(path).expanduser()
    if not file.is_file() or file.suffix != ".py":
        raise ConfigError(f"{file} is not a Python file")
    return file, name


def _load(path: Path, what: str) -> Any:
    if not path.is_file():
        raise ConfigError(f"{path} does not exist")
    if path.suffix == ".npz":
        import numpy as np

        with np.load(path) as arrays:
            return {k: torch.from_numpy(arrays[k]) for k in arrays.files}
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - a pickle of objects, a damaged file: one sentence
        raise DataError(f"cannot read the {what} {path} as tensors ({type(err).__name__}); save them with "
                        "torch.save (a state_dict; a tuple (inputs, targets) or a dict with x and y)") from None


def weights_of(blob: Any) -> dict[str, torch.Tensor]:
    """A state_dict from a weights file: a plain state_dict, or a checkpoint holding one under ``model`` or
    ``state_dict`` (Studio's, Lightning's)."""
    if isinstance(blob, dict):
        for key in ("model", "state_dict", "model_state_dict"):
            if isinstance(blob.get(key), dict):
                return blob[key]
        if blob and all(isinstance(v, torch.Tensor) for v in blob.values()):
            return blob
    raise DataError("the weights file holds no state_dict (torch.save(model.state_dict(), path) writes one)")


def data_of(blob: Any) -> tuple[torch.Tensor, torch.Tensor]:
    if isinstance(blob, (tuple, list)) and len(blob) >= 2:
        return blob[0], blob[1]
    if isinstance(blob, dict) and "x" in blob and "y" in blob:
        return blob["x"], blob["y"]
    raise DataError("the data file holds no (inputs, targets): save a tuple (x, y) or a dict with x and y")


def attach(run_dir: Path, model: str, weights: Path, data: Path | None, init: str = "{}",
           step: int | None = None) -> dict[str, Any]:
    """Attach the model to the run in ``run_dir``; what was written. The model is built and its weights loaded
    before anything is written, so a bad argument leaves the run as it was."""
    if not is_external(RunConfig.load(layout.config_path(run_dir))):
        raise ConfigError(f"run {run_dir.name} was trained by Studio: its model is already there")
    code, name = parse_model(model)
    try:
        kwargs = json.loads(init)
    except ValueError:
        raise ConfigError(f"the model's arguments must be a JSON object, e.g. '{{\"hidden\": 64}}'; got {init!r}") \
            from None
    if not isinstance(kwargs, dict):
        raise ConfigError(f"the model's arguments must be a JSON object; got {init!r}")
    cls = attached.find_class(attached.import_code(code), name)
    try:
        net = cls(**kwargs)
    except TypeError as err:
        raise ConfigError(f"building {name}(**{kwargs}) failed ({err}); give its arguments with --init") from None
    state = weights_of(_load(weights, "weights"))
    from studio.engine.loop.checkpoints import atomic_save, load_weights_into

    load_weights_into(net, state, weights)
    batch = data_of(_load(data, "data")) if data is not None else None
    if batch is None and not layout.attached_data_path(run_dir).exists():
        raise ConfigError("the run has no data yet: give --data FILE.pt (a tuple (inputs, targets) of tensors)")
    layout.attached_dir(run_dir).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(code, layout.attached_code_path(run_dir))
    trust_copy(layout.attached_code_path(run_dir))  # the user's own code: it may run again (core/usercode/trust.py)
    meta: dict[str, Any] = {"class": name, "module": code.stem, "source": str(code.resolve()), "init": kwargs}
    if batch is not None:
        attached.save_data(run_dir, *batch)
        meta["task"] = attached.task_of(*batch)
    else:
        meta["task"] = attached.read_meta(run_dir).get("task") if layout.attached_model_path(run_dir).exists() \
            else None
    attached.write_meta(run_dir, meta)
    last = layout.list_checkpoints(run_dir)
    at = step if step is not None else (last[-1].step + 1 if last else 0)
    ckpt = {"model": net.state_dict(), "step": at, "epoch": 0, "config": {}}
    path = atomic_save(ckpt, layout.checkpoint_path(run_dir, at))
    atomic_save(ckpt, layout.final_path(run_dir))
    return {"run_id": run_dir.name, "checkpoint": str(path), "step": at, "class": name,
            "samples": int(len(batch[1])) if batch is not None else None}
