"""The arrows of docs/developer/layers.md: core/engine never import Qt; the GUI does not import torch at start-up,
nor any engine module at all (it gets the engine through ``core/contracts/engine_port.py`` from ``studio/app.py``)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "studio"
QT = ("PySide6", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def engine_imports(path: Path) -> list[str]:
    """Every import of ``studio.engine`` in the file, at any depth (a function's lazy import counts), as
    'line N: module'; ``from studio import engine`` included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] if node.module != "studio" else [f"studio.{a.name}" for a in node.names]
        found += [f"line {node.lineno}: {n}" for n in names if n == "studio.engine" or n.startswith("studio.engine.")]
    return found


def test_core_and_engine_never_import_qt():
    offenders = []
    for layer in ("core", "engine"):
        for path in (ROOT / layer).rglob("*.py"):
            if any(m.split(".")[0] in QT for m in imported_modules(path)):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_gui_and_app_import_without_torch():
    code = ("import sys; import studio.app, studio.gui, studio.gui.app.main_window, studio.gui.session.session;"
            "from studio.gui.tabs import EXTRA_TABS;"
            "[t.load() for t in EXTRA_TABS];"
            "bad = [m for m in sys.modules if m == 'torch' or m.startswith('torch.')];"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, env={"QT_QPA_PLATFORM": "offscreen",
                                                                   "PATH": "/usr/bin:/bin"})


def test_core_never_imports_engine_gui_or_cli():
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        for module in imported_modules(path):
            if module.startswith(("studio.engine", "studio.gui", "studio.cli", "studio.app")):
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_engine_never_imports_gui():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("*.py")
                 if any(m.startswith("studio.gui") for m in imported_modules(p))]
    assert offenders == []


def test_the_gui_never_imports_the_engine():
    offenders = [f"{p.relative_to(ROOT)} {hit}" for p in sorted((ROOT / "gui").rglob("*.py"))
                 for hit in engine_imports(p)]
    assert offenders == []


def test_the_engine_import_check_sees_a_lazy_import(tmp_path: Path):
    module = tmp_path / "view.py"
    module.write_text("import os\n\ndef run():\n    from studio.engine.jobs import backend\n"
                      "    import studio.engine.port\n    from studio import engine\n")
    assert engine_imports(module) == ["line 4: studio.engine.jobs", "line 5: studio.engine.port",
                                      "line 6: studio.engine"]


def test_the_tracking_client_imports_only_core():
    """``studio.track`` runs inside a user's training script: no Qt, no GUI, no engine, no CLI, no torch at import."""
    offenders = [f"{p.relative_to(ROOT)} imports {m}" for p in (ROOT / "track").rglob("*.py")
                 for m in imported_modules(p)
                 if m.split(".")[0] in QT or m.startswith(("studio.gui", "studio.engine", "studio.cli", "studio.app"))]
    assert offenders == []
    code = ("import sys, studio.track; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'PySide6', 'lightning', 'transformers')]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True,
                   env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT.parent)})
