"""Each layer's packages import only packages on a lower floor of the layer's written order (``LAYERS`` in the
layer's ``__init__.py``): core (vocab/errors → … → checks), the engine and the GUI. Counted at package level,
with function-level imports and package ``__init__`` files (tests/unit/test_import_graph.py's graph)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.unit.test_import_graph import ROOT, graph_of, module_names

LAYERED = ("studio.core", "studio.engine", "studio.gui")


def package_of(module: str, layer: str) -> str | None:
    """The top package (or root module) under ``layer`` that ``module`` belongs to; None outside the layer."""
    if not module.startswith(layer + "."):
        return None
    return module[len(layer) + 1:].split(".")[0]


def arrows_up(layer: str, layers: tuple[tuple[str, ...], ...], graph: dict[str, set[str]]) -> list[str]:
    """Every import from a package to one on its own or a higher floor, as 'a.b -> c.d (a -> c)'."""
    floor = {name: i for i, names in enumerate(layers) for name in names}
    bad = []
    for module, deps in sorted(graph.items()):
        here = package_of(module, layer)
        if here is None:
            continue
        for dep in sorted(deps):
            there = package_of(dep, layer)
            if there is not None and there != here and floor.get(there, -1) >= floor.get(here, -1):
                bad.append(f"{module} -> {dep} ({here} on floor {floor.get(here)}, {there} on {floor.get(there)})")
    return bad


@pytest.mark.parametrize("layer", LAYERED)
def test_every_package_of_the_layer_has_a_floor(layer: str) -> None:
    layers = importlib.import_module(layer).LAYERS
    listed = [name for names in layers for name in names]
    assert len(listed) == len(set(listed)), "a package is listed twice"
    folder = ROOT.parent / Path(*layer.split("."))
    present = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    present |= {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    assert present == set(listed), f"not in {layer}.LAYERS: {present - set(listed)}; gone: {set(listed) - present}"


@pytest.mark.parametrize("layer", LAYERED)
def test_imports_point_down_the_floors(layer: str) -> None:
    assert arrows_up(layer, importlib.import_module(layer).LAYERS, graph_of(module_names())) == []


def test_the_order_check_sees_an_arrow_up_through_a_package_init(tmp_path: Path) -> None:
    """maths/__init__ imports runs (a floor above): the package's face counts like any module of it."""
    top = tmp_path / "core"
    for name in ("maths", "runs"):
        (top / name).mkdir(parents=True)
    (top / "__init__.py").write_text("")
    (top / "maths" / "__init__.py").write_text("from core.runs import store\n")
    (top / "runs" / "__init__.py").write_text("")
    (top / "runs" / "store.py").write_text("from core.maths import x\n")
    graph = graph_of(module_names(top))
    assert arrows_up("core", (("maths",), ("runs",)), graph) == [
        "core.maths -> core.runs (maths on floor 0, runs on 1)",
        "core.maths -> core.runs.store (maths on floor 0, runs on 1)"]
    assert arrows_up("core", (("runs",), ("maths",)), graph) == [
        "core.runs.store -> core.maths (runs on floor 0, maths on 1)"]
