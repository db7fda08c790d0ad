"""Resume: a run stopped at step k and resumed ends with the same weights as an uninterrupted run
(bit-identical with 1 process on CPU; 2 processes: equal within 1e-6, observed bit-identical), its
curves continue, a finished run can be extended; checkpoints are atomic and the last N are kept."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError, DiskFull
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch
from studio.engine.training.resume_plan import plan_resume
from tests.conftest import run_cli

if TYPE_CHECKING:
    import torch

# dropout and gradient noise draw random numbers every step: their RNG states must come back too
SETTINGS = ["data.name=moons", "data.n_samples=400", "model.widths=32", "model.dropout=0.2", "train.epochs=3",
            "train.batch_size=16", "train.seed=5", "train.grad_noise=0.01", "train.metric_interval=1",
            "hardware.threads=1", "schedule.name=cosine"]


def weights(run_dir) -> dict[str, torch.Tensor]:
    import torch

    return torch.load(run_dir / "checkpoints" / "final.pt", weights_only=True)["model"]


def stop_at(store: RunStore, cfg: RunConfig, step: int):
    job = launch(cfg, store)
    while job.progress["step"] < step and not job.finished:
        job.poll(0.02)
    job.stop()
    assert job.wait(60) == "stopped"
    return job


@pytest.mark.parametrize("processes", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_stopped_and_resumed_equals_uninterrupted(home, processes):
    import torch

    cfg = RunConfig().with_overrides([*SETTINGS, f"hardware.processes={processes}"])
    store = RunStore(home)
    whole = launch(cfg, store)
    assert whole.wait(120) == "finished"
    part = stop_at(store, cfg, 17)
    stopped_at = store.get(part.run_id).summary["steps"]
    assert 0 < stopped_at < whole.summary["steps"]
    plan = plan_resume(store, part.run_id)
    again = launch(plan.config, store, resume=plan)
    assert again.wait(120) == "finished" and again.run_id == part.run_id
    a, b = weights(whole.run_dir), weights(again.run_dir)
    print(f"{processes} process(es): max |resumed - uninterrupted| = "
          f"{max((a[k].float() - b[k].float()).abs().max().item() for k in a):.3g}")
    if processes == 1:
        assert all(torch.equal(a[k], b[k]) for k in a), "resumed weights differ from the uninterrupted run's"
    else:
        assert all(torch.allclose(a[k], b[k], rtol=0, atol=1e-6) for k in a)
    steps = store.metrics(part.run_id)["train/loss"][0]
    assert steps == list(range(1, whole.summary["steps"] + 1))  # the curve continues: no gap, no repeat
    assert store.get(part.run_id).summary["steps"] == whole.summary["steps"]
    rows = store._db.execute("SELECT name, step, COUNT(*) FROM metrics WHERE run_id=? GROUP BY name, step "
                             "HAVING COUNT(*) > 1", (part.run_id,)).fetchall()
    assert rows == [], f"metric rows written twice: {rows[:5]}"
    # every rank's running loss sums come back, so the stopped epoch's loss is the uninterrupted one, bit for bit
    assert again.summary["train_loss"] == whole.summary["train_loss"]
    assert store.metrics(part.run_id)["train/epoch_loss"] == store.metrics(whole.run_id)["train/epoch_loss"]


def test_extend_a_finished_run_from_the_cli(home):
    first = run_cli("train", "--json", "--quiet", "--set", "data.name=moons", "--set", "data.n_samples=200",
                    "--set", "train.epochs=2", "--set", "train.keep_checkpoints=2", "--set", "train.checkpoint_every=1")
    run = json.loads(first.stdout.splitlines()[-1])
    refused = run_cli("train", "--resume", run["run_id"], "--json")
    assert refused.returncode == 2 and "train.epochs" in refused.stderr
    other = run_cli("train", "--resume", run["run_id"], "--set", "model.widths=8")
    assert other.returncode == 2 and "cannot change when resuming" in other.stderr
    more = run_cli("train", "--resume", run["run_id"][-8:], "--set", "train.epochs=4", "--json", "--quiet")
    assert more.returncode == 0, more.stderr
    result = json.loads(more.stdout.splitlines()[-1])
    assert result["run_id"] == run["run_id"] and result["epochs"] == 4 and result["steps"] == 2 * run["steps"]
    store = RunStore(home)
    assert store.get(run["run_id"]).run_config.train.epochs == 4
    epochs = store.metrics(run["run_id"])["epoch"][1]
    assert epochs == [1, 2, 3, 4]
    kept = sorted(p.name for p in (store.get(run["run_id"]).dir / "checkpoints").iterdir())
    # the newest two step checkpoints, and step 0 (the initial weights, which pruning never deletes)
    assert kept == ["final.pt", "step_0000000.pt", f"step_{3 * run['steps'] // 2:07d}.pt",
                    f"step_{2 * run['steps']:07d}.pt"]


def test_atomic_save_keeps_the_previous_checkpoint_on_a_full_disk(tmp_path, monkeypatch):
    import torch

    from studio.engine.loop import checkpoints

    path = tmp_path / "step_0000001.pt"
    checkpoints.atomic_save({"model": {"w": torch.ones(3)}, "step": 1}, path)
    real_open = open

    def full_disk(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if "w" in mode and str(file).endswith(".tmp"):
            def write(_data):
                raise OSError(28, "No space left on device")
            handle.write = write
        return handle

    monkeypatch.setattr("builtins.open", full_disk)
    with pytest.raises(DiskFull, match="disk is full"):
        checkpoints.atomic_save({"model": {"w": torch.zeros(3)}, "step": 1}, path)
    monkeypatch.undo()
    assert torch.equal(checkpoints.load_checkpoint(path)["model"]["w"], torch.ones(3))
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_live_runs_cannot_be_resumed(home):
    store = RunStore(home)
    info = store.create_run(RunConfig())
    store.set_status(info.id, "running")
    with pytest.raises(ConfigError, match="running"):
        plan_resume(store, info.id)
