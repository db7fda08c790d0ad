"""``run.save_model``: a model trained in a script, registered in its run's folder so Studio's analyses can rebuild
it (core/models/attached.py reads what is written here): the weights as a checkpoint in Studio's format, the code
file of its class, the class's name and arguments, and an example batch of its data."""

from __future__ import annotations

import inspect
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from studio.core.contracts import layout
from studio.core.models import attached
from studio.core.usercode.trust import trust_copy
from studio.track.warn import warn_once


def save_model(run_dir: Path, model: Any, example_batch: Any, *, step: int,
               init: Mapping[str, Any] | None = None) -> Path:
    """Write the model's checkpoint at ``step`` (and ``final.pt``), its code and, given one, the batch; the
    checkpoint's path. Raises on what cannot be written (the caller warns)."""
    import torch

    cls = type(model)
    source = inspect.getsourcefile(cls)
    if source is None:
        raise ValueError(f"the code of {cls.__qualname__} is not in a file Studio can copy")
    if cls.__module__ == "__main__":
        warn_once(f"main:{cls.__qualname__}", f"{cls.__qualname__} is defined in the script itself: Studio copies "
                                              "the script and imports it to rebuild the model, so keep the training "
                                              "under `if __name__ == \"__main__\":` (or move the class to a module)")
    else:
        _check_rebuilds(model, cls, dict(init or {}))
    folder = layout.attached_dir(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, layout.attached_code_path(run_dir))
    trust_copy(layout.attached_code_path(run_dir))  # the script's own code: it may run again (core/usercode/trust.py)
    meta: dict[str, Any] = {"class": cls.__qualname__, "module": cls.__module__, "source": source,
                            "init": dict(init or {})}
    if example_batch is not None:
        x, y = example_batch[0], example_batch[1]
        attached.save_data(run_dir, x, y)
        meta["task"] = attached.task_of(x, y)
    else:
        meta["task"] = attached.read_meta(run_dir).get("task") if layout.attached_model_path(run_dir).exists() else None
    attached.write_meta(run_dir, meta)
    state = {"model": {k: v.detach().cpu() for k, v in model.state_dict().items()}, "step": int(step), "epoch": 0,
             "config": {}}
    path = layout.checkpoint_path(run_dir, int(step))
    _atomic_save(torch, state, path)
    _atomic_save(torch, state, layout.final_path(run_dir))
    return path


def _check_rebuilds(model: Any, cls: Any, init: dict[str, Any]) -> None:
    """Build ``cls(**init)`` now and compare its weights' names and shapes, so a missing argument is said while
    the script runs, not when an analysis starts."""
    try:
        fresh = cls(**init)
    except TypeError as err:
        raise ValueError(f"{cls.__qualname__}(**{init}) cannot be built ({err}); pass init={{...}} with the "
                         "arguments the class takes") from None
    mine = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    theirs = {k: tuple(v.shape) for k, v in fresh.state_dict().items()}
    if mine != theirs:
        raise ValueError(f"{cls.__qualname__}(**{init}) builds other weights than the model's; pass init={{...}} "
                         "with the arguments the model was built with")


def _atomic_save(torch: Any, state: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)
