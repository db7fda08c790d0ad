"""`studio search` on real runs: a tiny search on moons with ASHA through the queue and its detached scheduler —
some trials pruned (their runs stopped with a checkpoint, marked pruned, resumable), the study a plain Optuna
storage, a second command continuing the study; and bad input in one sentence with exit 2, nothing queued."""

from __future__ import annotations

import optuna
import pytest

from studio.core.runs.queue import RunQueue
from studio.core.runs.store import RunStore
from studio.core.search.study import storage_url
from tests.conftest import last_json, run_cli, wait_for

MOONS = ["--set", "data.name=moons", "--set", "data.n_samples=8000", "--set", "data.noise=0.3",
         "--set", "model.widths=16", "--set", "train.epochs=9", "--set", "train.batch_size=32",
         "--set", "train.histogram_every=0", "--set", "train.trajectory_snapshots=false"]
SEARCH = ["search", *MOONS, "--space", "optimizer.lr=1e-5..3", "--sampler", "random", "--pruner", "asha",
          "--study", "moons", "--json"]


@pytest.mark.slow
def test_a_tiny_search_prunes_through_the_queue_and_a_second_command_continues_it(studio_home) -> None:
    proc = run_cli(*SEARCH, "--trials", "6", timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["trials"] == 6 and out["pruned"] >= 1 and out["complete"] >= 1
    assert out["epochs_trained"] < out["epochs_full"] and 0 < out["compute_fraction"] < 1
    store = RunStore(studio_home)
    wait_for(lambda: RunQueue(store).lease_holder() is None, 60, "the scheduler to exit")
    study = optuna.load_study(study_name="moons", storage=storage_url(studio_home))
    pruned = [store.get(t.user_attrs["run_id"]) for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned and all(run.status == "pruned" and run.resumable for run in pruned)
    runs = last_json(run_cli("runs", "--filter", "status:pruned", "--json").stdout)
    assert {r["run_id"] for r in runs["runs"]} == {r.id for r in pruned}
    resumed = run_cli("train", "--resume", pruned[0].id, "--json", timeout=300)
    assert resumed.returncode == 0 and last_json(resumed.stdout)["status"] == "finished", resumed.stderr

    again = run_cli(*SEARCH, "--trials", "8", timeout=600)  # the same study: two more trials
    assert again.returncode == 0, again.stderr
    assert last_json(again.stdout)["continued"] and last_json(again.stdout)["trials"] == 8
    report = last_json(run_cli("search", "--report", "moons", "--json").stdout)
    assert len(report["trials"]) == 8 and report["best"]["value"] == last_json(again.stdout)["best_value"]


@pytest.mark.parametrize("args, words", [
    (["--space", "optimizer.lr=0.1..0.01"], "is inverted: write the lower end first"),
    (["--space", "optimizer.lr=0.1..0.1"], "is empty"),
    (["--space", "optimizer.lrate=1e-4..1e-1"], "did you mean optimizer.lr"),
    (["--space", "optimizer.lr=1e-4..1e-1", "--metric", "val/accuracy"], "no run logs a metric called"),
    (["--space", "train.batch_size=32,64", "--sampler", "grid", "--trials", "5"], "the grid has 2 points"),
    (["--space", "optimizer.lr=1e-4..1e-1", "--study", "s", "--report", "nope"], "no study called 'nope'"),
    ([], "at least one --space"),
])
def test_bad_input_is_one_sentence_with_exit_2_and_queues_nothing(studio_home, args: list[str], words: str) -> None:
    proc = run_cli("search", *args, "--no-start")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and words in lines[0], proc.stderr
    assert lines[0].startswith("studio: error:")
    assert RunStore(studio_home).list() == []
