"""``studio train --explain``: the resolved recipe of a run, without training it or creating it
(engine/training/recipe.py, cli/train.py)."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from studio.cli import main
from studio.core.config import RunConfig
from studio.core.config.fit_check import training_samples
from studio.core.runs.store import RunStore
from studio.engine.loop.sinks import NullSink
from tests.conftest import last_json, run_cli

SMALL = ["data.name=moons", "data.n_samples=300", "model.name=mlp", "model.widths=16", "train.epochs=3",
         "train.batch_size=32"]


def explain_json(capsys, *sets: str) -> dict:
    args = ["train", "--explain", "--json"]
    for item in sets:
        args += ["--set", item]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_the_recipe_is_what_the_run_would_train_with(capsys, tmp_path):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    sets = [*SMALL, "train.grad_clip=0.5", "train.early_stop_patience=2", "train.accumulate_steps=2",
            "optimizer.name=sgd", "optimizer.lr=0.2", "train.lr_scaling=true", "train.base_batch=16"]
    recipe = explain_json(capsys, *sets)
    trainer = build_trainer(RunConfig().with_overrides(sets), DistContext(), NullSink(), "test", str(tmp_path), None)
    assert [cb["name"] for cb in recipe["callbacks"]] == [type(cb).__name__ for cb in trainer.callbacks]
    assert [cb["stage"] for cb in recipe["callbacks"]] == [cb.stage for cb in trainer.callbacks]
    assert recipe["steps"] == {"train_samples": len(trainer.train_data), "per_epoch": trainer.total_steps // 3,
                               "total": trainer.total_steps, "exact": True}
    assert recipe["global_batch"]["samples"] == trainer.global_batch == 64  # 32 × 2 micro-batches × 1 process
    assert recipe["optimizer"]["scaled_lr"] == pytest.approx(trainer.lr())  # 0.2 × 64 / 16
    assert recipe["model"]["parameters"] == sum(p.numel() for p in trainer.net.parameters())
    assert recipe["data"] == {"name": "moons", "n_samples": 300, "noise": 0.1}


def test_the_train_section_lists_the_switches_that_are_on(capsys):
    off = explain_json(capsys, *SMALL, "train.histogram_every=0", "train.early_stop_min_delta=0.5")
    on = explain_json(capsys, *SMALL, "train.grad_noise=0.01", "train.early_stop_patience=3",
                      "train.early_stop_min_delta=0.5", "train.precision=bf16")
    for key in ("epochs", "batch_size", "seed", "precision", "metric_interval"):
        assert key in off["train"]  # the basics, always
    for key in ("grad_noise", "early_stop_patience", "early_stop_min_delta", "histogram_every",
                "accumulate_steps", "label_smoothing", "lr_scaling", "base_batch"):
        assert key not in off["train"]  # off, neutral, or only meaningful with a switch that is off
    assert {k: on["train"][k] for k in ("grad_noise", "early_stop_patience", "early_stop_min_delta", "precision")} \
        == {"grad_noise": 0.01, "early_stop_patience": 3, "early_stop_min_delta": 0.5, "precision": "bf16"}
    assert "HistogramRecorder" not in [cb["name"] for cb in off["callbacks"]]
    assert "GradientNoise" in [cb["name"] for cb in on["callbacks"]]


def test_explaining_creates_no_run_and_starts_no_process(capsys, monkeypatch, studio_home):
    import studio.engine.training.launcher as launcher

    store = RunStore(studio_home)
    existing = store.create_run(RunConfig(), "already here")
    folders = sorted(p.name for p in existing.dir.parent.iterdir())

    def refuse(*_args, **_kwargs):
        raise AssertionError("--explain launched a run")

    monkeypatch.setattr(launcher, "launch", refuse)
    assert main(["train", "--explain", *sum((["--set", s] for s in SMALL), [])]) == 0
    text = capsys.readouterr().out
    assert text.startswith("data       moons") and "callbacks" in text and "Checkpointer" in text
    assert [run.id for run in RunStore(studio_home).list()] == [existing.id]
    assert sorted(p.name for p in existing.dir.parent.iterdir()) == folders
    assert multiprocessing.active_children() == []


def test_a_catalog_dataset_not_on_this_machine_is_sized_from_the_catalog_not_downloaded(capsys):
    recipe = explain_json(capsys, "data.name=mnist", "train.epochs=2")
    expected = training_samples(RunConfig().with_overrides(["data.name=mnist"]))
    assert recipe["steps"]["exact"] is False and recipe["steps"]["train_samples"] == expected
    assert recipe["steps"]["total"] == 2 * recipe["steps"]["per_epoch"] and "parameters" not in recipe["model"]
    transfer = explain_json(capsys, "data.name=mnist", "model.name=transfer", "model.frozen_epochs=2")
    does = {cb["name"]: cb["does"] for cb in transfer["callbacks"]}  # a model with frozen epochs, not built here
    assert "start of epoch 3" in does["TwoStageFineTune"]


@pytest.mark.parametrize("sets", [["model.name=nope"], ["data.name=moons", "model.name=cnn"],
                                  ["optimizer.name=newton", "hardware.processes=2"]])
def test_a_bad_config_exits_2_with_one_line(capsys, sets):
    assert main(["train", "--explain", *sum((["--set", s] for s in sets), [])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("studio: error:")


def test_the_command_line_prints_one_json_object(studio_home):
    proc = run_cli("train", "--explain", "--json", *sum((["--set", s] for s in SMALL), []))
    assert proc.returncode == 0, proc.stderr
    recipe = last_json(proc.stdout)
    assert set(recipe) == {"data", "model", "optimizer", "schedule", "train", "hardware", "global_batch", "steps",
                           "callbacks"}
    assert recipe["callbacks"][0]["name"] == "Control" and recipe["callbacks"][-1]["name"] == "Checkpointer"
    assert not (studio_home / "runs").exists() or not any((studio_home / "runs").iterdir())


def test_explaining_a_resume_shows_the_continuation_and_leaves_the_run_as_it_was(capsys, studio_home):
    from studio.core.contracts import layout

    store = RunStore(studio_home)
    run = store.create_run(RunConfig().with_overrides(SMALL), "stopped run")
    store.set_status(run.id, "stopped", "stopped by the user")
    layout.checkpoints_dir(run.dir).mkdir(parents=True, exist_ok=True)
    (layout.checkpoints_dir(run.dir) / layout.step_name(10)).write_bytes(b"")  # planning reads its name only
    assert main(["train", "--explain", "--json", "--resume", run.id, "--set", "train.epochs=7"]) == 0
    assert json.loads(capsys.readouterr().out)["train"]["epochs"] == 7
    after = RunStore(studio_home).get(run.id)
    assert (after.status, after.message, after.run_config.train.epochs) == ("stopped", "stopped by the user", 3)
