"""Studio's modules import each other without a cycle, counting the imports inside functions too (a cycle
hidden in a function-level import is still a cycle: issue 11 found config ↔ registries and cli ↔ cli_*), and
counting package ``__init__`` files: importing ``a.b.c`` runs ``a/b/__init__.py`` first, so an import of a module
is an import of every package above it too (issue 32 found text.store → datasets/__init__ → catalog → text.store,
a real loop at run time that the plain module graph missed)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import studio

ROOT = Path(studio.__file__).parent


def module_names(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The studio modules ``path`` imports anywhere in it (``from pkg import mod`` names the module), each with
    the packages above it that importing it runs, except ``name``'s own (they run before ``name`` does)."""
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
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
    with_packages = set()
    for module in found:
        parts = module.split(".")
        with_packages |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return {m for m in with_packages if m in known and m not in own}


def graph_of(known: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imported(path, name, known) for name, path in known.items()}


def test_the_import_graph_has_no_cycle():
    known = module_names()
    graph = graph_of(known)
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
    assert graph_of(known) == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}


def test_the_checker_sees_a_cycle_through_a_package_init(tmp_path):
    """text.store imports datasets.cache, which runs datasets/__init__, which imports text.store: a loop."""
    for folder in ("text", "datasets"):
        (tmp_path / folder).mkdir()
    (tmp_path / "text" / "__init__.py").write_text("")
    (tmp_path / "text" / "store.py").write_text("from datasets import cache\n")
    (tmp_path / "datasets" / "__init__.py").write_text("from datasets.catalog import DATASETS\n")
    (tmp_path / "datasets" / "cache.py").write_text("")
    (tmp_path / "datasets" / "catalog.py").write_text("from text.store import x\n")
    known = module_names(tmp_path / "text") | module_names(tmp_path / "datasets")
    graph = graph_of(known)
    assert graph["text.store"] == {"datasets", "datasets.cache"}  # the package's __init__ counts
    assert graph["datasets.catalog"] == {"text", "text.store"}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError:
        return
    raise AssertionError("the loop through datasets/__init__ was not seen")
