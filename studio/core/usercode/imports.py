"""The packages a user's file imports that are not installed here, found without importing anything (``ast`` and
``importlib.util.find_spec`` of each top-level name)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path


def missing_imports(path: str | Path) -> list[tuple[str, int]]:
    """(module, line) of each absolute import at the file's top level whose package cannot be found."""
    path = Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    wanted: list[tuple[str, int]] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            wanted += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            wanted.append((node.module, node.lineno))
    out = []
    for name, line in wanted:
        top = name.split(".")[0]
        if top in sys.builtin_module_names or top == "__future__":
            continue
        try:
            found = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append((name, line))
    return out
