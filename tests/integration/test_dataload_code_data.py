"""The Input pipeline page measures a dataset that is code like any folder: the user's Dataset (with a random
transform) read by DataLoader workers, against its items preloaded on the device, and the page asks for it from
the current config (tests/gui/test_own_code_form.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.core.contracts.dataload import DataloadRequest
from tests.own_code_files import write_user_files

pytestmark = pytest.mark.slow


def test_a_python_dataset_is_measured_like_a_folder(tmp_path: Path, studio_home: Path) -> None:
    from studio.engine.dataload.sweep import run_sweep

    _, data = write_user_files(tmp_path / "tree")
    params = {"path": str(data), "class": "Quarters", "args": {"jitter": 0.1}}
    result = run_sweep(DataloadRequest(dataset="python", data_params=params, workers="0,1", steps=8, epochs=2,
                                       batch_size=16, device="cpu"))
    assert (result["images"], result["shape"], result["classes"]) == (256, [3, 16, 16], 4)
    assert [r["label"] for r in result["rows"]] == ["0 workers", "1 worker", "device-resident"]
    assert all(r["steps"] == 8 and r["samples_per_s"] > 0 for r in result["rows"])
    assert result["verdict"]



def test_the_cli_measures_a_python_dataset_with_its_settings(tmp_path: Path, studio_home: Path) -> None:
    from tests.conftest import last_json, run_cli

    _, data = write_user_files(tmp_path / "tree")
    proc = run_cli("dataload", "--dataset", "python", "--set", f"data.path={data}", "--set", "data.class=Quarters",
                   "--set", "data.args.jitter=0.1", "--workers", "0", "--steps", "4", "--epochs", "2",
                   "--batch-size", "16", "--device", "cpu", "--json", timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = last_json(proc.stdout)
    assert (out["images"], out["shape"], out["classes"]) == (256, [3, 16, 16], 4)
    assert [r["label"] for r in out["rows"]] == ["0 workers", "device-resident"]
