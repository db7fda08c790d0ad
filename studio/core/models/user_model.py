"""Build a ``python`` model: the class or factory of a user's file, imported by path (workers only: the file may
import torch), called with the config's arguments and what the dataset decides (input shape, classes, …)."""

from __future__ import annotations

import math
from typing import Any

from torch import nn

from studio.core.usercode.arguments import DATA_ARGS
from studio.core.usercode.errors import UserCodeError
from studio.core.usercode.loading import load_object, user_error
from studio.core.usercode.reader import MODEL, read_file


def data_values(input_shape: tuple[int, ...], num_classes: int, vocab_size: int | None = None) -> dict[str, Any]:
    """What Studio passes for each of :data:`DATA_ARGS` a signature takes."""
    values: dict[str, Any] = {
        "input_shape": tuple(input_shape), "num_classes": num_classes, "n_classes": num_classes,
        "num_outputs": num_classes, "in_channels": input_shape[0] if input_shape else 1,
        "in_chans": input_shape[0] if input_shape else 1, "in_features": math.prod(input_shape),
    }
    values["vocab_size"] = vocab_size if vocab_size is not None else num_classes
    return values


def build_python(input_shape: tuple[int, ...], num_classes: int, path: str = "", args: dict[str, Any] | None = None,
                 vocab_size: int | None = None, **params: Any) -> nn.Module:
    """The model ``params["class"]`` of the file ``path`` with ``args`` (checked against its signature)."""
    from studio.core.usercode.arguments import check_values

    name = str(params.pop("class", ""))
    if params:
        raise UserCodeError(f"model.{next(iter(params))} is not a setting of a python model (path, class, args)")
    definition = read_file(path).get(name, MODEL)
    values = check_values(name, definition.arguments, dict(args or {}), "model.args")
    given = data_values(input_shape, num_classes, vocab_size)
    for argument in definition.arguments:
        if argument.name in DATA_ARGS and argument.name in given:
            values[argument.name] = given[argument.name]
    factory = load_object(path, name)
    try:
        net = factory(**values)
    except Exception as err:  # noqa: BLE001 - the user's __init__: its line, not Studio's stack
        raise UserCodeError(user_error(err) or f"building {name} failed: {type(err).__name__}: {err}") from None
    if not isinstance(net, nn.Module):
        raise UserCodeError(f"{name} returned a {type(net).__name__}, not an nn.Module")
    return net
