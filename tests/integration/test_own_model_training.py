"""Training a user's own model on a user's own dataset as any catalog run trains: stopped and resumed equals
uninterrupted bit for bit (a random transform in ``__getitem__``, read by two DataLoader workers), two processes
(DDP), bf16 with gradient accumulation; a queue sweep over the file's own argument; ``studio compare`` telling two
runs' code apart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch
from studio.engine.training.resume_plan import plan_resume
from tests.conftest import last_json, run_cli, wait_for
from tests.own_code_files import user_model, write_user_files

pytestmark = pytest.mark.slow


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_user_files(tmp_path / "tree")


def settings(files: tuple[Path, Path], *more: str) -> RunConfig:
    base = [*user_model(*files, width=16), "data.args.jitter=0.1", "data.workers=2", "train.epochs=2",
            "train.batch_size=16", "train.seed=3", "train.metric_interval=1", "hardware.threads=1"]
    return RunConfig().with_overrides([*base, *more])


def final_weights(run_dir: Path) -> dict:
    import torch

    return torch.load(run_dir / "checkpoints" / "final.pt", weights_only=True)["model"]


def test_stopped_and_resumed_equals_uninterrupted(studio_home: Path, files: tuple[Path, Path]) -> None:
    import torch

    cfg = settings(files)
    store = RunStore(studio_home)
    whole = launch(cfg, store)
    assert whole.wait(180) == "finished", whole.errors
    part = launch(cfg, store)
    while part.progress["step"] < 9 and not part.finished:
        part.poll(0.02)
    part.stop()
    assert part.wait(60) == "stopped"
    assert 0 < store.get(part.run_id).summary["steps"] < whole.summary["steps"]
    plan = plan_resume(store, part.run_id)
    again = launch(plan.config, store, resume=plan)
    assert again.wait(180) == "finished", again.errors
    a, b = final_weights(Path(whole.run_dir)), final_weights(Path(again.run_dir))
    assert all(torch.equal(a[k], b[k]) for k in a), "resumed weights differ from the uninterrupted run's"
    assert again.summary["train_loss"] == whole.summary["train_loss"]


def test_two_processes_and_bf16_with_accumulation(studio_home: Path, files: tuple[Path, Path]) -> None:
    import math

    store = RunStore(studio_home)
    for extra in (["hardware.processes=2", "data.workers=1"], ["train.precision=bf16", "train.accumulate_steps=2"]):
        job = launch(settings(files, *extra), store)
        assert job.wait(240) == "finished", (extra, job.errors)
        assert math.isfinite(job.summary["val_loss"]) and job.summary["steps"] > 0


def test_queue_sweep_over_the_files_argument_and_compare_sees_the_code(studio_home: Path,
                                                                       files: tuple[Path, Path]) -> None:
    env = dict(os.environ, STUDIO_HOME=str(studio_home))
    studio_home.mkdir(parents=True, exist_ok=True)
    config = studio_home / "own.toml"
    settings(files, "train.epochs=1", "data.workers=0").save(config)
    proc = run_cli("queue", "sweep", "--config", str(config), "--vary", "model.args.width=8,24", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    ids = last_json(proc.stdout)["run_ids"]
    store = RunStore(studio_home)
    wait_for(lambda: all(store.get(i).status in ("finished", "failed") for i in ids), 240, "the sweep")
    assert [store.get(i).status for i in ids] == ["finished", "finished"], [store.get(i).message for i in ids]
    assert [store.get(i).run_config.model.params["args"]["width"] for i in ids] == [8, 24]
    model_file = files[0]
    model_file.write_text(model_file.read_text() + "\n# a changed line\n")
    proc = run_cli("train", "--config", str(config), "--json", "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    changed = last_json(proc.stdout)["run_id"]
    table = last_json(run_cli("compare", ids[0], changed, "--json", env=env).stdout)
    assert "model.code" in table["differing"]
    same = last_json(run_cli("compare", ids[0], ids[1], "--json", env=env).stdout)
    assert same["differing"] == ["model.args.width"]
