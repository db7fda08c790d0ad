"""A model trained outside Studio, rebuilt from what its run folder holds (``studio.track``'s ``run.save_model``,
``studio attach``): ``attached/model.py`` (the code file its class is defined in, copied), ``attached/model.json``
(the class's name and the arguments it is built with, the task) and ``attached/data.pt`` (a batch of its data:
``x``, ``y``). The one function the analyses build such a model through (engine/replay.py's RunData); the weights
are the run's checkpoints, loaded as any run's.

The code is imported under a module name of its own, so a script that defines its model beside its training keeps
the training under ``if __name__ == "__main__":`` and only the class is defined when Studio imports it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from studio.core.contracts import layout
from studio.core.errors import ConfigError, DataError

CLASSIFICATION = "classification"
REGRESSION = "regression"


def read_meta(run_dir: str | Path) -> dict[str, Any]:
    """``attached/model.json`` (class, init, task); DataError when the run has no attached model."""
    path = layout.attached_model_path(run_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"the run in {run_dir} has no model Studio can build: it was trained outside Studio and "
                        "no model was saved with it (run.save_model(model, batch) in the script, or `studio attach`)"
                        ) from None
    except (OSError, ValueError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    return data if isinstance(data, dict) else {}


def write_meta(run_dir: str | Path, meta: dict[str, Any]) -> None:
    layout.attached_dir(run_dir).mkdir(parents=True, exist_ok=True)
    layout.attached_model_path(run_dir).write_text(json.dumps(meta, indent=1, default=str), encoding="utf-8")


def import_code(code: Path) -> Any:
    """The module of a copied code file, imported under a name of its own (its ``__main__`` block not run); a copy
    this user has not trusted (someone else's run folder) is refused (core/usercode/trust.py)."""
    from studio.core.usercode.trust import check_trusted

    check_trusted(code)
    name = "studio_attached_" + hashlib.sha1(str(code.resolve()).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, code)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{code} is not a Python file Studio can import")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[name]
        raise ConfigError(f"importing the model's code {code.name} failed: {type(err).__name__}: {err}") from None
    return module


def find_class(module: Any, qualname: str) -> Any:
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ConfigError(f"the model's code has no class {qualname!r}")
    return obj


def build_model(run_dir: str | Path) -> Any:
    """The attached model, built from its copied code with its recorded arguments (weights not loaded)."""
    meta = read_meta(run_dir)
    code = layout.attached_code_path(run_dir)
    if not code.is_file():
        raise DataError(f"the run in {run_dir} has no copy of its model's code ({code.name})")
    cls = find_class(import_code(code), str(meta.get("class", "")))
    try:
        return cls(**dict(meta.get("init") or {}))
    except TypeError as err:
        raise ConfigError(f"building {meta.get('class')} with {meta.get('init') or 'no arguments'} failed ({err}); "
                          "record the arguments it takes (init={...} in save_model, --init in studio attach)") from None


def load_data(run_dir: str | Path) -> tuple[Any, Any]:
    """The attached batch ``(x, y)`` (tensors on the CPU)."""
    import torch

    path = layout.attached_data_path(run_dir)
    if not path.is_file():
        raise DataError(f"the run in {run_dir} has no data for its analyses: give save_model an example batch "
                        "(inputs, targets), or `studio attach RUN --data FILE.pt`")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
        return data["x"], data["y"]
    except (OSError, RuntimeError, KeyError, TypeError) as err:
        raise DataError(f"cannot read the run's data {path}: {err}") from None


def task_of(x: Any, y: Any) -> str:
    """Classification for whole-number targets (one per sample), regression for real-valued ones."""
    return CLASSIFICATION if not y.is_floating_point() and y.dim() == 1 else REGRESSION


def save_data(run_dir: str | Path, x: Any, y: Any) -> None:
    import torch

    layout.attached_dir(run_dir).mkdir(parents=True, exist_ok=True)
    torch.save({"x": x.detach().cpu(), "y": y.detach().cpu()}, layout.attached_data_path(run_dir))
