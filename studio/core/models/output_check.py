"""Whether a model from outside the catalog (a user's file, timm, Hugging Face) gives outputs that fit the task:
one sentence naming the shapes ("Net returns (64, 5) but fashion_mnist_small has 10 classes"). Called by the
engine on the first training batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.core.usercode.errors import UserCodeError

OUTSIDE = frozenset({"python", "timm", "hf"})


def model_label(cfg: Any) -> str:
    """How a sentence names the config's model: the class, the timm architecture, the folder."""
    p = cfg.model.params
    if cfg.model.name == "python":
        return str(p.get("class") or "the model")
    if cfg.model.name == "timm":
        return f"timm {p.get('arch')}"
    return Path(str(p.get("path") or "the model")).name


def check_batch_output(cfg: Any, out: Any, x_shape: tuple[int, ...], classes: int, task: str) -> None:
    """UserCodeError when ``out`` (the model's output for a batch of inputs shaped ``x_shape``) does not fit."""
    name, data = model_label(cfg), cfg.data.name
    shape = getattr(out, "shape", None)
    if shape is None or not hasattr(out, "dim"):
        raise UserCodeError(f"{name} returns a {type(out).__name__}, not a tensor of scores; return the logits")
    dims = tuple(int(d) for d in shape)
    shown = "(" + ", ".join(map(str, dims)) + ")"
    n = x_shape[0]
    if task == "regression":
        if dims not in ((n,), (n, 1)):
            raise UserCodeError(f"{name} returns {shown} but {data} is a regression: return ({n}, 1)")
        return
    if task == "tokens":
        want = (n, x_shape[1], classes)
        if dims != want:
            raise UserCodeError(f"{name} returns {shown} but {data} needs a score per token of its {classes}-word "
                                f"vocabulary at each of the {x_shape[1]} positions: {want}")
        return
    if len(dims) != 2 or dims[0] != n:
        raise UserCodeError(f"{name} returns {shown} for a batch of {n}; it must return ({n}, {classes}): one "
                            "score per class")
    if dims[1] != classes:
        raise UserCodeError(f"{name} returns {shown} but {data} has {classes} classes")
