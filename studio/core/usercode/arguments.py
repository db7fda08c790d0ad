"""A user's ``__init__`` (or factory) arguments, read from the signature with ``ast``, and the values a config
gives them, checked one sentence each before anything runs.

An argument's kind comes from its annotation (``int``, ``float``, ``bool``, ``str``, ``list[int]`` /
``tuple[int, ...]``, ``Literal["a", "b"]``, ``Optional[...]`` of those); without one, from its default when that is
a plain value; otherwise it is text (the value is read as TOML: ``64`` stays a number). An argument whose default
is not a plain value (``act=nn.ReLU``) keeps its default and is not on the form. The arguments Studio fills from
the dataset (:data:`DATA_ARGS`) are never asked for.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from studio.core.contracts.registry import Param
from studio.core.errors import ConfigError
from studio.core.usercode.errors import UserCodeError

# Arguments a model's signature may take that Studio fills from the dataset: the input's shape, its channels
# (timm's name and torchvision's), its flattened size, the number of classes (or outputs), the vocabulary's size.
DATA_ARGS = frozenset({"input_shape", "num_classes", "n_classes", "num_outputs", "in_channels", "in_chans",
                       "in_features", "vocab_size"})
SPLIT_ARGS = frozenset({"split", "train"})  # a dataset's: one is built per split (train/val/test, True/False)
REQUIRED = object()  # the default of an argument without one
_SIMPLE = {"int": "int", "float": "float", "bool": "bool", "str": "str"}
_DESCRIBE = {"int": "a whole number", "float": "a number", "bool": "true or false", "str": "text",
             "ints": "a list of whole numbers", "choice": "one of the choices", "any": "a value"}


@dataclass(frozen=True)
class Argument:
    """One argument: its kind (a registry Param kind, or ``any`` for unannotated text), its default
    (:data:`REQUIRED` without one), the annotation as written, the choices of a ``Literal``."""

    name: str
    kind: str
    default: Any
    annotation: str = ""
    choices: tuple[str, ...] = ()
    line: int = 0

    @property
    def required(self) -> bool:
        return self.default is REQUIRED and not self.from_data

    @property
    def from_data(self) -> bool:
        return self.name in DATA_ARGS or self.name in SPLIT_ARGS

    def param(self) -> Param:
        """A typed parameter for a settings form (text for an unannotated argument)."""
        unset = self.default is REQUIRED or self.default is None  # an empty text field: no value yet
        kind = "str" if self.kind == "any" or (unset and self.kind not in ("choice", "bool")) else self.kind
        default = "" if unset else self.default
        if kind == "choice" and default not in self.choices:
            default = self.choices[0]
        if kind == "str" and not isinstance(default, str):
            default = str(default)
        help_ = f"{self.name}: {self.annotation}" if self.annotation else self.name
        if self.default is REQUIRED:
            help_ += " (required: it has no default)"
        return Param(self.name, kind, default, help_, choices=self.choices)

    def coerce(self, value: Any, where: str, owner: str) -> Any:
        """``value`` converted to this argument's type, or one sentence naming ``where`` and the argument."""
        if self.kind == "any" or (value is None and self.default is None):
            return value
        if self.kind == "choice":
            if str(value) not in self.choices:
                raise ConfigError(f"{where} must be one of {', '.join(self.choices)} ({owner}'s {self.name}); "
                                  f"got {value!r}")
            return str(value)
        wrong = ConfigError(f"{where} must be {_DESCRIBE[self.kind]} ({owner}'s {self.name}: "
                            f"{self.annotation or self.kind}), not {value!r}")
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise wrong
            return value
        if self.kind == "str":
            return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else _raise(
                wrong)
        if self.kind == "ints":
            items = value if isinstance(value, list) else str(value).split(",") if isinstance(value, str) else None
            try:
                return [_whole(v) for v in items] if items is not None else _raise(wrong)
            except (TypeError, ValueError):
                raise wrong from None
        try:
            if isinstance(value, bool):
                raise ValueError
            return _whole(value) if self.kind == "int" else float(value)
        except (TypeError, ValueError):
            raise wrong from None


def _raise(err: Exception) -> Any:
    raise err


def _whole(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(value)
        return int(value)
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, int):
        return value
    raise TypeError(value)


def arguments_of(func: ast.FunctionDef, skip_first: bool) -> tuple[Argument, ...]:
    """The arguments of ``func`` a person can set (``self`` skipped; ``*args``/``**kwargs`` and arguments whose
    default is not a plain value left out)."""
    spec = func.args
    positional = [*spec.posonlyargs, *spec.args]
    if skip_first and positional:
        positional = positional[1:]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    pairs += list(zip(spec.kwonlyargs, spec.kw_defaults, strict=True))
    out = []
    for arg, default in pairs:
        made = _argument(arg, default)
        if made is not None:
            out.append(made)
    return tuple(out)


def _argument(arg: ast.arg, default_node: ast.expr | None) -> Argument | None:
    default: Any = REQUIRED
    if default_node is not None:
        try:
            default = ast.literal_eval(default_node)
        except ValueError:
            return None  # a default that is not a plain value (nn.ReLU, a call): it keeps it
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    kind, choices = _kind(arg.annotation, default)
    if isinstance(default, tuple):
        default = list(default)
    return Argument(arg.arg, kind, default, annotation, choices, arg.lineno)


def _kind(node: ast.expr | None, default: Any) -> tuple[str, tuple[str, ...]]:
    if node is None:
        return _kind_of_value(default), ()
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation: "int"
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return "any", ()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # int | None
        parts = [p for p in (node.left, node.right) if not _is_none(p)]
        return _kind(parts[0], default) if len(parts) == 1 else ("any", ())
    if isinstance(node, ast.Name) and node.id in _SIMPLE:
        return _SIMPLE[node.id], ()
    if isinstance(node, ast.Subscript):
        outer = ast.unparse(node.value).rpartition(".")[2]
        inner = node.slice
        if outer == "Optional":
            return _kind(inner, default)
        if outer == "Literal":
            values = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            consts = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if consts and len(consts) == len(values):
                return "choice", tuple(str(c) for c in consts)
            return "any", ()
        if outer in ("list", "List", "tuple", "Tuple", "Sequence"):
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            if all((isinstance(i, ast.Name) and i.id == "int") or (isinstance(i, ast.Constant) and i.value is ...)
                   for i in items):
                return "ints", ()
    return "any", ()


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _kind_of_value(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                           for v in value):
        return "ints"
    return "any"


def check_values(owner: str, arguments: tuple[Argument, ...], values: dict[str, Any],
                 where: str) -> dict[str, Any]:
    """The config's ``values`` for ``owner``'s arguments, converted; one sentence for an unknown argument, a
    required one without a value, or a value of the wrong type. ``where``: the config key prefix
    (``model.args``)."""
    known = {a.name: a for a in arguments}
    for name in values:
        if name not in known:
            settable = ", ".join(a.name for a in arguments if not a.from_data) or "none"
            raise UserCodeError(f"{where}.{name} is not an argument of {owner} (its arguments: {settable})")
        if known[name].from_data:
            raise UserCodeError(f"{where}.{name} is filled in from the dataset; leave it out")
    missing = [a.name for a in arguments if a.required and a.name not in values]
    if missing:
        raise UserCodeError(f"{owner} needs a value for {missing[0]} ({where}.{missing[0]}): it has no default")
    return {name: known[name].coerce(value, f"{where}.{name}", owner) for name, value in values.items()}
