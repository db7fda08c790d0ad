"""Issue 20: `studio sharpness` / `studio landscape` with a read-only home — one line, exit 2, before any work."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import run_cli
from tests.reliability.test_export_faults import made_read_only, trained  # noqa: F401 - the shared fixture
from tests.reliability.test_store_faults import one_error


@pytest.mark.parametrize("command", [("sharpness",), ("landscape", "--kind", "1d")], ids=["sharpness", "landscape"])
def test_analysis_with_a_read_only_home(trained, tmp_path, command):  # noqa: F811
    home, run_id = trained
    copy = tmp_path / "ro" / "home"
    shutil.copytree(home, copy)
    env = {**os.environ, "STUDIO_HOME": str(copy)}
    with made_read_only(tmp_path / "ro"):
        by_dir = one_error(run_cli(*command, str(copy / "runs" / run_id), "--quiet", env=env))
        assert "read-only" in by_dir or "permission" in by_dir, by_dir
        assert "cannot save" in by_dir and "landscapes" in by_dir
        by_id = one_error(run_cli(*command, run_id, "--quiet", env=env))  # the store itself cannot be opened
        assert "runs.db" in by_id, by_id
    assert not (copy / "runs" / run_id / "landscapes").exists()
