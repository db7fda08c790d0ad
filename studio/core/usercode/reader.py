"""What a user's Python file defines, read with ``ast``: never imported, so the GUI and every check before a run
starts can list a file's models and datasets and their ``__init__`` arguments without running its code or
importing torch.

A *model* is a class deriving from ``nn.Module`` (``torch.nn.Module``, ``nn.Sequential``, or another model class
of the same file), or a top-level function that returns one (its return annotation names one, or it returns a
call of one). A *dataset* is a class deriving from ``Dataset`` (``torch.utils.data.Dataset``, or another dataset
class of the file), or a function that returns datasets (annotated so, or returning calls of dataset classes). A
class nested in a class is named with dots (``Zoo.Net``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from studio.core.usercode.arguments import Argument, arguments_of
from studio.core.usercode.errors import UserCodeError

MODEL, DATASET = "model", "dataset"
CLASS, FACTORY = "class", "factory"

MODEL_BASES = frozenset({"Module", "Sequential"})  # the last name of a base: nn.Module, torch.nn.Sequential …
DATASET_BASES = frozenset({"Dataset", "TensorDataset", "ConcatDataset", "Subset"})
_TORCH_ROOTS = frozenset({"nn", "torch", "data", "utils"})  # a dotted base must come through these


@dataclass(frozen=True)
class Definition:
    """One model or dataset of a file: its (dotted) name, role, whether a class or a factory, its line, the first
    line of its docstring and its arguments in order."""

    name: str
    role: str
    form: str
    line: int
    doc: str
    arguments: tuple[Argument, ...]

    def argument(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)


@dataclass(frozen=True)
class CodeFile:
    """A parsed file: its path and what it defines, in the file's order."""

    path: Path
    definitions: tuple[Definition, ...]

    def of_role(self, role: str) -> list[Definition]:
        return [d for d in self.definitions if d.role == role]

    def get(self, name: str, role: str) -> Definition:
        """The definition ``name`` of ``role``, or one sentence naming what the file has."""
        for d in self.definitions:
            if d.name == name and d.role == role:
                return d
        found = [d.name for d in self.of_role(role)]
        if not found:
            raise UserCodeError(no_definition_sentence(self.path, role))
        other = next((d for d in self.definitions if d.name == name), None)
        if other is not None:
            raise UserCodeError(f"{name} in {self.path.name} is a {other.role}, not a {role}; its {role}s: "
                                f"{', '.join(found)}")
        raise UserCodeError(f"{self.path.name} has no {role} called {name!r}; it has: {', '.join(found)}")


def no_definition_sentence(path: Path, role: str) -> str:
    what = ("an nn.Module subclass or a function that returns one" if role == MODEL
            else "a torch.utils.data.Dataset subclass or a function that returns datasets")
    return f"{path.name} defines no {role}: Studio looks for {what}"


def read_file(path: str | Path) -> CodeFile:
    """Parse ``path``; UserCodeError (one sentence) when it is missing, unreadable or not valid Python."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise UserCodeError(f"no such file: {path}" if not path.exists() else f"{path} is a folder, not a .py file")
    stat = path.stat()
    return _read_unchanged(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _read_unchanged(path: str, mtime_ns: int, size: int) -> CodeFile:
    """A file parsed once while it is unchanged (the form asks again on every edit; a large file is parsed once,
    off the window's thread: gui/app/open_code.py)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserCodeError(f"{Path(path).name} is not a Python text file (it is not UTF-8 text)") from None
    except OSError as err:
        raise UserCodeError(f"cannot read {path}: {err.strerror}") from None
    return read_source(text, path)


def read_source(text: str, path: str | Path = "<code>") -> CodeFile:
    """Parse Python source ``text`` (``path`` names it in messages)."""
    path = Path(path)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as err:
        raise UserCodeError(f"{path.name} line {err.lineno}: {err.msg} — fix the syntax error there") from None
    return CodeFile(path, tuple(_definitions(tree)))


def _definitions(tree: ast.Module) -> list[Definition]:
    classes = list(_classes(tree.body, ""))
    roles = _class_roles(classes)
    out: list[Definition] = []
    by_name = {name: node for name, node in classes}
    for name, node in classes:
        role = roles.get(name)
        if role is None:
            continue
        init = _init_of(name, node, by_name)
        args = arguments_of(init, skip_first=True) if init is not None else ()
        out.append(Definition(name, role, CLASS, node.lineno, _doc(node), args))
    model_classes = {n for n, r in roles.items() if r == MODEL}
    dataset_classes = {n for n, r in roles.items() if r == DATASET}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            role = _factory_role(node, model_classes, dataset_classes)
            if role is not None:
                out.append(Definition(node.name, role, FACTORY, node.lineno, _doc(node),
                                      arguments_of(node, skip_first=False)))
    return sorted(out, key=lambda d: d.line)


def _classes(body: list[ast.stmt], prefix: str) -> Any:
    """Every class of ``body`` with its dotted name, nested ones included."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            name = prefix + node.name
            yield name, node
            yield from _classes(node.body, name + ".")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    if isinstance(node, ast.Subscript):  # Dataset[Tensor]
        return _dotted(node.value)
    return ""


def _base_role(base: str, roles: dict[str, str], local: dict[str, str]) -> str | None:
    """The role a base class name gives: a torch base by its last name, or a class of the file."""
    if base in roles:
        return roles[base]
    if base in local and local[base] in roles:
        return roles[local[base]]
    head, _, last = base.rpartition(".")
    if head and not set(head.split(".")) <= _TORCH_ROOTS:
        return None
    if last in MODEL_BASES:
        return MODEL
    if last in DATASET_BASES or last == "IterableDataset":
        return DATASET
    return None


def _class_roles(classes: list[tuple[str, ast.ClassDef]]) -> dict[str, str]:
    """Each class's role, following bases through the file's own classes (to a fixed point)."""
    local = {node.name: name for name, node in classes}  # a bare base name → its dotted name in the file
    roles: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for name, node in classes:
            if name in roles:
                continue
            for base in node.bases:
                role = _base_role(_dotted(base), roles, local)
                if role is not None:
                    roles[name] = role
                    changed = True
                    break
    return roles


def _init_of(name: str, node: ast.ClassDef, by_name: dict[str, ast.ClassDef]) -> ast.FunctionDef | None:
    """The class's ``__init__``, or the nearest one of its bases in the file (None: nothing to set)."""
    seen = set()
    while node is not None and name not in seen:
        seen.add(name)
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                return item
        parent = next((_dotted(b) for b in node.bases if _dotted(b) in by_name
                       or any(k.endswith("." + _dotted(b)) for k in by_name)), None)
        if parent is None:
            return None
        name = parent if parent in by_name else next(k for k in by_name if k.endswith("." + parent))
        node = by_name[name]
    return None


def _factory_role(node: ast.FunctionDef, models: set[str], datasets: set[str]) -> str | None:
    """A function's role from its return annotation, else from what its ``return`` statements call."""
    if node.returns is not None:
        role = _annotation_role(node.returns, models, datasets)
        if role is not None:
            return role
    for item in ast.walk(node):
        if isinstance(item, ast.Return) and item.value is not None:
            role = _value_role(item.value, models, datasets)
            if role is not None:
                return role
    return None


def _annotation_role(node: ast.expr, models: set[str], datasets: set[str]) -> str | None:
    names = {_dotted(n) for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))}
    names |= {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    for name in names:
        last = name.rpartition(".")[2]
        if name in models or last in MODEL_BASES:
            return MODEL
        if name in datasets or last in DATASET_BASES:
            return DATASET
    return None


def _value_role(node: ast.expr, models: set[str], datasets: set[str]) -> str | None:
    calls = [node] if isinstance(node, ast.Call) else list(node.elts) if isinstance(node, ast.Tuple) else []
    for call in calls:
        if isinstance(call, ast.Call):
            name = _dotted(call.func)
            last = name.rpartition(".")[2]
            if name in models or (last in MODEL_BASES and name != last or name == "Sequential"):
                return MODEL
            if name in datasets or last in DATASET_BASES:
                return DATASET
    return None


def _doc(node: ast.ClassDef | ast.FunctionDef) -> str:
    doc = ast.get_docstring(node) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""
