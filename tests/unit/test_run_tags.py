"""Run tags (migration 3): add, remove, one query for every run, deleted with the run, in `--json`, kept by a
rebuilt database; `studio runs --tag/--untag/--filter/--sort/--limit`."""

import json

import pytest

from studio import cli
from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.db import MIGRATIONS
from studio.core.runs.store import RunStore


def test_tags_are_added_removed_listed_and_deleted_with_the_run(studio_home):
    assert 3 in [v for v, _ in MIGRATIONS]
    store = RunStore(studio_home)
    assert store._db.execute("PRAGMA user_version").fetchone()[0] >= 3
    a, b = store.create_run(RunConfig()), store.create_run(RunConfig())
    store.add_tags([a.id, b.id], ["baseline", "sweep1"])
    store.add_tags([a.id], ["baseline"])  # twice: no change
    store.remove_tags([b.id], ["sweep1", "never-there"])
    assert store.tags() == {a.id: ["baseline", "sweep1"], b.id: ["baseline"]}
    assert {r.id: r.tags for r in store.list()} == {a.id: ["baseline", "sweep1"], b.id: ["baseline"]}
    assert store.get(a.id).to_json()["tags"] == ["baseline", "sweep1"]
    with pytest.raises(ConfigError, match="not a tag"):
        store.add_tags([a.id], ["two words"])
    with pytest.raises(ConfigError, match="no run 'nope'"):
        store.add_tags([a.id, "nope"], ["x"])
    assert store.tags([a.id]) == {a.id: ["baseline", "sweep1"]}  # nothing changed by the refused calls
    store.delete(a.id)
    assert store.tags() == {b.id: ["baseline"]}


def test_a_rebuilt_database_keeps_the_tags(studio_home):
    store = RunStore(studio_home)
    run = store.create_run(RunConfig())
    store.add_tags([run.id], ["keep"])
    store.close()
    (studio_home / "runs.db").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        (studio_home / f"runs.db{suffix}").unlink(missing_ok=True)
    again = RunStore(studio_home)
    assert again.recovery is not None and again.get(run.id).tags == ["keep"]


def _store_with_runs(home):
    store = RunStore(home)
    made = []
    for i, (lr, acc) in enumerate([(0.1, 0.9), (0.01, 0.7), (0.05, None), (0.2, 0.8)]):
        run = store.create_run(RunConfig().with_overrides([f"optimizer.lr={lr}"]), name=f"run{i}")
        if acc is not None:
            store.set_status(run.id, "finished", summary={"test_acc": acc})
        made.append(run.id)
    return store, made


def listed(capsys, *args):
    code = cli.main(["runs", "--json", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out)["runs"] if code == 0 else out.err)


def test_cli_filter_sort_limit_and_bad_filter(studio_home, capsys):
    store, made = _store_with_runs(studio_home)
    code, rows = listed(capsys)
    assert code == 0 and [r["run_id"] for r in rows] == made[::-1]  # newest first
    assert all(r["tags"] == [] for r in rows)
    code, rows = listed(capsys, "--filter", "test_acc>=0.8")
    assert [r["name"] for r in rows] == ["run3", "run0"]
    code, rows = listed(capsys, "--sort", "test_acc", "--desc")
    assert [r["name"] for r in rows] == ["run0", "run3", "run1", "run2"]  # no test_acc: last
    code, rows = listed(capsys, "--filter", "status:finished", "--sort", "optim.lr", "--limit", "2")
    assert [r["name"] for r in rows] == ["run1", "run0"]  # the limit after the filter and the sort
    code, rows = listed(capsys, "--limit", "1")
    assert [r["name"] for r in rows] == ["run3"]
    for bad in (["--filter", "test_acc>good"], ["--sort", "nonsense"], ["--limit", "-1"]):
        code, err = listed(capsys, *bad)
        assert code == 2 and err.startswith("studio: error: ") and err.count("\n") == 1  # the documented prefix
    assert cli.main(["runs", "--filter", "status:running"]) == 0
    assert "No run matches" in capsys.readouterr().out


def test_cli_tag_and_untag(studio_home, capsys):
    store, made = _store_with_runs(studio_home)
    assert cli.main(["runs", "--tag", made[1][-8:], "baseline", "lr-sweep"]) == 0
    assert "baseline, lr-sweep" in capsys.readouterr().out
    assert cli.main(["runs", "--untag", made[1], "lr-sweep"]) == 0
    capsys.readouterr()
    code, rows = listed(capsys, "--filter", "tag:baseline")
    assert [(r["name"], r["tags"]) for r in rows] == [("run1", ["baseline"])]
    assert cli.main(["runs"]) == 0 and "[baseline]" in capsys.readouterr().out
    assert cli.main(["runs", "--tag", "no-such-run", "x"]) == 2
    assert "no run 'no-such-run'" in capsys.readouterr().err
    assert cli.main(["runs", "--tag", made[0]]) == 2
    assert "needs a run and at least one tag" in capsys.readouterr().err


def test_cli_filter_sees_the_names_the_run_list_shows(studio_home, capsys):
    store = RunStore(studio_home)
    # runs from before names were given at creation keep the old "model · optimizer · data" in the store; they are
    # shown by today's rule ("mlp · fashion_mnist_small · adam lr=0.05"), and the filter sees what is shown
    old_name = "mlp · adam · fashion_mnist_small"
    runs = [store.create_run(RunConfig().with_overrides([f"optimizer.lr={lr}"]), name=old_name) for lr in (0.05, 0.1)]
    assert "0.05" not in runs[0].name
    code, rows = listed(capsys, "--filter", "0.05")
    assert code == 0 and [r["run_id"] for r in rows] == [runs[0].id]
