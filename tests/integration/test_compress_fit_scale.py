"""`studio compress`, `studio fit` and `studio scale` on real runs (issue 15, parts 2–4)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from studio import cli
from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch
from tests.unit.landscape_runs import train_run

# the first test waits for `default_run` (up to 900 s on a crowded machine) inside its time limit
pytestmark = pytest.mark.timeout(1200)

@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One run of the DEFAULT config (the bundled Fashion-MNIST subset, MLP 512-512, 5 epochs)."""
    home = tmp_path_factory.mktemp("compress_home")
    store = RunStore(home)
    job = launch(RunConfig(), store)
    assert job.wait(timeout=900) == "finished", job.errors  # seconds idle; minutes on a machine shared by eight
    run_dir = Path(job.run_dir)
    summary = store.get(run_dir.name).summary
    store.close()
    return {"home": home, "dir": run_dir, "id": run_dir.name, "summary": summary}


@pytest.fixture
def in_store(default_run: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setenv("STUDIO_HOME", str(default_run["home"]))
    return default_run


def studio(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, dict | None, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    return code, (json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None), out.err


def test_half_the_weights_pruned_keeps_accuracy_within_a_point(in_store: dict, capsys):
    import torch

    code, out, err = studio(capsys, "compress", in_store["id"], "--prune", "0.5", "--json", "--quiet")
    assert code == 0, err
    before, after = out["before"], out["after"]
    assert before["test_acc"] == pytest.approx(in_store["summary"]["test_acc"], abs=1e-9)  # the trainer's own
    assert after["sparsity"] == pytest.approx(0.5, abs=1e-3)
    assert after["nonzero_params"] < 0.55 * before["params"]
    assert abs(after["test_acc"] - before["test_acc"]) <= 0.01
    assert after["gzip_bytes"] < 0.75 * before["gzip_bytes"]  # zeros pay off once compressed
    saved = torch.load(Path(out["path"]) / "model.pt", weights_only=True)  # an ordinary checkpoint
    zeros = sum(int((t == 0).sum()) for k, t in saved["model"].items() if k.endswith("weight"))
    assert zeros == pytest.approx(0.5 * sum(t.numel() for k, t in saved["model"].items() if k.endswith("weight")),
                                  rel=0.01)


def test_int8_dynamic_quantisation_shrinks_the_model_3x_within_a_point(in_store: dict, capsys):
    code, out, err = studio(capsys, "compress", in_store["id"], "--quantize", "int8", "--json", "--quiet")
    assert code == 0, err
    assert out["method"] == "dynamic"  # an MLP: Linear layers, no convolutions
    assert out["before"]["bytes"] / out["after"]["bytes"] >= 3.0
    assert (Path(out["path"]) / "model.pt").stat().st_size * 3 <= out["before"]["bytes"]
    assert abs(out["accuracy_change"]) <= 0.01
    assert all(out["after"][k] > 0 for k in ("latency_ms", "batch256_ms"))  # measured, not asserted


def test_fit_reports_r2_on_a_real_run(in_store: dict, capsys):
    code, out, err = studio(capsys, "fit", in_store["id"], "--metric", "train/loss", "--json")
    assert code == 0, err
    assert math.isfinite(out["r2"]) and out["r2"] > 0.5
    assert out["b"] > 0 and out["fits"][0]["points"] >= 10
    assert out["predicted"]["low"] <= out["predicted"]["loss"] <= out["predicted"]["high"]


def test_bad_input_is_one_line_and_exit_2(in_store: dict, capsys):
    for argv, words in ((("compress", in_store["id"], "--prune", "1.5"), "pruning amount"),
                        (("compress", in_store["id"]), "nothing to do"),
                        (("fit", in_store["id"], "--against", "params"), "at least 4 runs"),
                        (("fit", in_store["id"], "--metric", "nope"), "no 'nope' values"),
                        (("scale", "--processes", "0,x"), "--processes")):
        code, _, err = studio(capsys, *argv)
        assert code == 2, argv
        assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_scale_measures_one_and_two_processes(capsys):
    code, out, err = studio(capsys, "scale", "--processes", "1,2", "--steps", "12", "--eval-every", "6",
                            "--set", "data.name=moons", "--set", "model.widths=32", "--set", "train.batch_size=64",
                            "--set", "optimizer.lr=0.02",
                            "--target", "0.5", "--json", "--quiet")
    assert code == 0, err
    one, two = out["rows"]
    assert (one["processes"], two["processes"]) == (1, 2) and out["device"] == "cpu"
    assert one["efficiency"] == pytest.approx(1.0) and one["allreduce_ms"] == 0.0
    assert two["local_batch"] == 32 and two["global_batch"] == 64
    assert two["compute_ms"] > 0 and two["fwd_bwd_ms"] >= 0
    assert two["efficiency"] == pytest.approx(two["samples_per_s"] / (2 * one["samples_per_s"]))
    assert one["steps_to_target"] is not None and one["steps_to_target"] == two["steps_to_target"]


MOONS_SCALE = ("--processes", "1", "--steps", "8", "--eval-every", "4", "--set", "data.name=moons",
               "--set", "model.widths=16", "--set", "train.batch_size=32", "--json", "--quiet")


def test_scale_of_a_regression_reports_a_loss_and_no_accuracy(capsys):
    code, out, err = studio(capsys, "scale", "--processes", "1", "--steps", "8", "--eval-every", "4",
                            "--set", "data.name=noisy_line", "--set", "model.name=linear_neuron",
                            "--set", "train.batch_size=16", "--json", "--quiet")
    assert code == 0, err
    (row,) = out["rows"]
    assert row["val_acc"] is None and row["steps_to_target"] is None  # JSON null: a regression has no accuracy
    assert math.isfinite(row["val_loss"]) and all(acc is None for _, acc in row["curve"])


def test_scale_trains_with_the_configs_optimizer(capsys):
    runs = {}
    for name, extra in (("adam", ["--set", "optimizer.name=adam", "--set", "optimizer.lr=0.01"]),
                        ("sgd", ["--set", "optimizer.name=sgd", "--set", "optimizer.lr=0.01",
                                 "--set", "optimizer.momentum=0.9"])):
        code, out, err = studio(capsys, "scale", *MOONS_SCALE, *extra)
        assert code == 0, err
        (row,) = out["rows"]
        assert out["optimizer"] == row["optimizer"] == name and 0.0 <= row["val_acc"] <= 1.0
        runs[name] = row
    assert runs["adam"]["val_loss"] != pytest.approx(runs["sgd"]["val_loss"], rel=1e-6)  # not Adam both times


def test_sweep_accuracy_against_sparsity(in_store: dict, capsys):
    code, out, err = studio(capsys, "compress", in_store["id"], "--sweep", "--json", "--quiet")
    assert code == 0, err
    points = out["points"]
    assert [p["target"] for p in points] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
    assert all(abs(p["sparsity"] - p["target"]) < 1e-3 for p in points)
    assert points[0]["test_acc"] == pytest.approx(in_store["summary"]["test_acc"], abs=1e-9)
    assert points[-1]["test_acc"] < points[0]["test_acc"] - 0.05  # 95 % of the weights gone costs accuracy
    assert Path(out["path"]).exists()


@pytest.mark.slow  # trains a LeNet-5 (a minute on a busy 2-core machine)
def test_static_int8_with_calibration_for_a_conv_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    run_dir = train_run(tmp_path, ["model.name=lenet5", "train.epochs=1"])
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    code, out, err = studio(capsys, "compress", str(run_dir), "--quantize", "int8", "--json", "--quiet")
    assert code == 0, err
    assert out["method"] == "static"
    assert out["size_ratio"] >= 3.0
    assert abs(out["accuracy_change"]) <= 0.01
