"""Shared fixtures: every test gets its own STUDIO_HOME, so nothing touches the user's runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def studio_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "studio_home"
    monkeypatch.setenv("STUDIO_HOME", str(home))
    monkeypatch.delenv("STUDIO_DATA_DIR", raising=False)
    return home


def run_cli(*args: str, timeout: float = 240, **kwargs) -> subprocess.CompletedProcess:
    """Run ``python -m studio ARGS`` as a user would, capturing output."""
    return subprocess.run([sys.executable, "-m", "studio", *args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)
