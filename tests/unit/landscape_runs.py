"""A helper for the landscape tests: train a small real run and return its directory."""

from __future__ import annotations

from pathlib import Path

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch


def train_run(home: Path, overrides: list[str]) -> Path:
    """Train a run with ``overrides`` in the store at ``home``; fail the test unless it finishes."""
    store = RunStore(home)
    job = launch(RunConfig().with_overrides(overrides), store)
    state = job.wait(timeout=180)
    assert state == "finished", job.errors
    return Path(job.run_dir)


# keep_checkpoints=0 keeps every step checkpoint (the default keeps the newest 3, dropping the initial one the
# landscape tests pick and the trajectory needs)
SMALL = ["data.name=moons", "data.n_samples=400", "model.widths=16,16", "train.batch_size=32", "train.epochs=3",
         "train.checkpoint_every=1", "optimizer.lr=0.01", "train.keep_checkpoints=0"]
