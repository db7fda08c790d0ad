"""Studio's modules import each other without a cycle, counting the imports inside functions too (a cycle
hidden in a function-level import is still a cycle: issue 11 found config ↔ registries and cli ↔ cli_*)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import studio

ROOT = Path(studio.__file__).parent


def module_names() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The studio modules ``path`` imports anywhere in it (``from pkg import mod`` names the module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}
    return {m for m in found if m in known and m != name}


def test_the_import_graph_has_no_cycle():
    known = module_names()
    graph = {name: imported(path, name, known) for name, path in known.items()}
    assert len(graph) > 100 and graph["studio.cli"] >= {"studio.cli.data", "studio.cli.train"}
    assert graph["studio.cli.train"] >= {"studio.cli._shared"}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        raise AssertionError(f"an import cycle: {' -> '.join(err.args[1])}") from None


def test_the_checker_sees_a_cycle_through_a_function_level_import(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import thing\n")
    known = {"pkg": pkg / "__init__.py", "pkg.a": pkg / "a.py", "pkg.b": pkg / "b.py"}
    graph = {name: imported(path, name, known) for name, path in known.items()}
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
