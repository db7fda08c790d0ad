"""`studio landscape` and `studio sharpness` on real short runs; live snapshots and the sharpness curve."""

import json
import math
from pathlib import Path

import numpy as np

from studio.core.landscape import io
from studio.core.runs.store import RunStore
from tests.conftest import run_cli

LANDSCAPE_KEYS = {"path", "kind", "resolution", "center_loss", "min_loss", "max_loss", "seconds"}
SHARPNESS_KEYS = {"top_eigenvalues", "trace", "eps_sharpness", "seconds"}
MOONS = ["--set", "data.name=moons", "--set", "data.n_samples=400", "--set", "model.widths=16,16",
         "--set", "train.batch_size=32", "--set", "optimizer.lr=0.01"]


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def train(*args: str) -> dict:
    proc = run_cli("train", "--json", "--quiet", *args)
    assert proc.returncode == 0, proc.stderr
    return last_json(proc.stdout)


def test_landscape_and_sharpness_of_a_default_run():
    run = train("--set", "train.epochs=1")
    proc = run_cli("landscape", run["run_id"], "--kind", "2d", "--resolution", "5", "--samples", "500", "--json")
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert LANDSCAPE_KEYS <= set(out) and out["kind"] == "2d" and out["resolution"] == 5
    assert out["min_loss"] <= out["center_loss"] < out["max_loss"] and out["center_loss"] < 1.0  # trained
    saved = io.load(out["path"])
    assert Path(out["path"]).parent == Path(run["run_dir"]) / "landscapes"
    assert saved.loss.shape == (5, 5) and saved.meta["split"] == "train" and "BatchNorm" in saved.meta["batch_norm"]
    assert "%" in proc.stderr  # progress on stderr

    proc = run_cli("landscape", run["run_dir"], "--kind", "1d", "--resolution", "5", "--samples", "300", "--json")
    assert proc.returncode == 0, proc.stderr
    line = last_json(proc.stdout)
    assert line["kind"] == "1d" and line["center_loss"] < line["max_loss"]

    proc = run_cli("sharpness", run["run_id"], "--samples", "256", "--trace-samples", "8", "--k", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    sharp = last_json(proc.stdout)
    assert SHARPNESS_KEYS <= set(sharp) and len(sharp["top_eigenvalues"]) == 2
    assert sharp["top_eigenvalues"][0] >= sharp["top_eigenvalues"][1] > 0
    assert sharp["trace"] > sharp["top_eigenvalues"][0] and sharp["eps_sharpness"] > 0


def test_trajectory_of_a_run_with_checkpoints_and_a_clear_error_without():
    run = train(*MOONS, "--set", "train.epochs=3", "--set", "train.checkpoint_every=1")
    proc = run_cli("landscape", run["run_id"], "--kind", "trajectory", "--resolution", "6", "--json")
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["kind"] == "trajectory" and len(out["explained_variance"]) == 2
    assert io.load(out["path"]).path.shape == (4, 2)

    bare = train(*MOONS, "--set", "train.epochs=1")
    proc = run_cli("landscape", bare["run_id"], "--kind", "trajectory", "--json")
    assert proc.returncode == 2 and "checkpoint_every" in proc.stderr and proc.stdout == ""
    proc = run_cli("landscape", "no-such-run", "--json")
    assert proc.returncode == 2 and "no run" in proc.stderr


def test_live_snapshots_and_the_sharpness_curve():
    run = train(*MOONS, "--set", "train.epochs=2", "--set", "train.landscape_every=1",
                "--set", "train.sharpness_every=1")
    frames = sorted((Path(run["run_dir"]) / "landscapes").glob("live_2d_epoch*.npz"))
    assert [f.name for f in frames] == ["live_2d_epoch0001.npz", "live_2d_epoch0002.npz"]
    first, second = io.load(frames[0]), io.load(frames[1])
    assert first.meta["epoch"] == 1 and second.loss.shape == (21, 21)
    assert not np.array_equal(first.loss, second.loss)
    steps, values = RunStore().metrics(run["run_id"])["sharpness/top_eig"]
    assert steps == [0, run["steps"] // 2, run["steps"]] and all(v > 0 and math.isfinite(v) for v in values)
