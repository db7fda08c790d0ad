"""`studio lr-find` on a real model: the ramp's rates and losses, a suggestion inside the ramp, nothing kept in the
run store; bad ramps are one sentence with exit 2; on a GPU the largest batch that fits."""

from __future__ import annotations

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

MOONS = ["--set", "data.name=moons", "--set", "model.widths=32", "--set", "optimizer.name=sgd"]


def test_the_range_test_suggests_a_rate_inside_its_ramp_and_keeps_nothing(studio_home) -> None:
    proc = run_cli("lr-find", *MOONS, "--start", "1e-4", "--end", "100", "--steps", "60", "--batch-size", "--json")
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert len(out["lrs"]) == len(out["losses"]) == len(out["smoothed"]) == out["steps"] <= 60
    assert out["lrs"][0] == pytest.approx(1e-4)
    s = out["suggestion"]
    assert 1e-4 <= s["steepest"] <= out["lrs"][-1]
    assert s["min_over_10"] == pytest.approx(out["lrs"][s["min_index"]] / 10)
    assert out["max_batch"] is None and "needs a GPU" in out["max_batch_note"]  # this config trains on the CPU
    assert RunStore(studio_home).list() == []  # a copy of the model: no run, nothing kept


def test_a_ramp_that_goes_down_is_one_sentence() -> None:
    proc = run_cli("lr-find", "--start", "1", "--end", "0.1")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "must be below its end" in lines[0]


@pytest.mark.cuda(devices=1, reason="the batch-size finder measures a GPU's memory")
def test_the_largest_batch_that_fits_on_a_gpu(studio_home) -> None:
    proc = run_cli("lr-find", "--set", "hardware.device=cuda", "--set", "model.name=cnn", "--steps", "20",
                   "--batch-size", "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["max_batch"] and out["max_batch"] >= 128 and "fits" in out["max_batch_note"]
