"""Collecting the tests imports no torch (issue 32: collection took 47 s, 55 test modules imported torch at import
time, directly or through studio modules): every conftest and test module imports with torch blocked; a test that
needs torch imports it when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imports the modules named on the command line with torch and torchvision blocked; prints the ones that reach them.
PROBE = r"""
import importlib, importlib.abc, sys

class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "torchvision"):
            raise ImportError(f"{name} imported at collection")

sys.meta_path.insert(0, NoTorch())
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError as err:
        if "imported at collection" not in str(err):
            raise
        print(name, "->", err)
"""


def collected_modules(root: Path) -> list[str]:
    """The dotted names of the conftest and test modules under ``root/tests``, as pytest collects them."""
    paths = sorted((root / "tests").rglob("conftest.py")) + sorted((root / "tests").rglob("test_*.py"))
    return [".".join(p.relative_to(root).with_suffix("").parts) for p in paths]


def torch_importers(names: list[str], cwd: Path) -> list[str]:
    """Which of ``names`` import torch when imported (each line: the module, then the import that reached torch)."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *names], cwd=cwd, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_no_test_module_imports_torch_when_collected():
    names = collected_modules(ROOT)
    assert len(names) > 200 and "tests.unit.test_optimizers" in names
    assert torch_importers(names, ROOT) == []


def test_the_probe_names_a_module_that_imports_torch_through_another(tmp_path):
    (tmp_path / "uses_models.py").write_text("import torch\n")
    (tmp_path / "test_heavy.py").write_text("from uses_models import torch\n")
    (tmp_path / "test_light.py").write_text("import json\n\ndef test_x():\n    import torch\n")
    assert torch_importers(["test_heavy", "test_light"], tmp_path) == ["test_heavy -> torch imported at collection"]
