"""`--seeds` on train and the queue: one run per seed, a seed group in `studio compare --json` with each final
number's mean ± std and n; bad seeds are one sentence with exit 2."""

from __future__ import annotations

import statistics

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import TINY_CONFIG, last_json, run_cli


def test_train_over_seeds_reports_the_group_and_compare_sees_it(studio_home, tmp_path) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_CONFIG.replace("epochs = 2", "epochs = 1"))
    proc = run_cli("train", "--config", str(config), "--seeds", "0,1", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["seeds"] == [0, 1] and [r["status"] for r in out["runs"]] == ["finished"] * 2
    assert out["group"].endswith("× 2 seeds") and "seed" not in out["group"].split(" × ")[0]
    accs = [r["test_acc"] for r in out["runs"]]
    assert out["metrics"]["test_acc"]["mean"] == pytest.approx(statistics.mean(accs))
    assert out["metrics"]["test_acc"]["std"] == pytest.approx(statistics.stdev(accs))
    ids = [r["run_id"] for r in out["runs"]]
    assert [RunStore(studio_home).params(r)["train.seed"] for r in ids] == [0, 1]
    table = last_json(run_cli("compare", *ids, "--json").stdout)
    assert table["groups"][0]["run_ids"] == ids and table["groups"][0]["n"] == 2
    text = run_cli("compare", *ids).stdout
    assert "× 2 seeds (seeds 0, 1): test_acc" in text and "± " in text


def test_queue_add_and_sweep_over_seeds(studio_home) -> None:
    proc = run_cli("queue", "add", "--seeds", "0-2", "--no-start", "--json")
    assert proc.returncode == 0, proc.stderr
    ids = last_json(proc.stdout)["run_ids"]
    store = RunStore(studio_home)
    assert [store.params(r)["train.seed"] for r in ids] == [0, 1, 2]
    proc = run_cli("queue", "sweep", "--vary", "optimizer.lr=0.01,0.1", "--seeds", "3,4", "--no-start", "--json")
    swept = last_json(proc.stdout)["run_ids"]
    assert [(store.params(r)["optimizer.lr"], store.params(r)["train.seed"]) for r in swept] == \
        [(0.01, 3), (0.01, 4), (0.1, 3), (0.1, 4)]


@pytest.mark.parametrize("command", [["train"], ["queue", "add", "--no-start"]])
def test_bad_seeds_are_one_sentence(studio_home, command: list[str]) -> None:
    proc = run_cli(*command, "--seeds", "4-0")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "lower seed first" in lines[0], proc.stderr
    assert RunStore(studio_home).list() == []
