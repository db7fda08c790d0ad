"""File > Open run store…: the window watches a store that another machine writes (here: another connection,
as rank 0 of a torchrun job would), read-only: its runs and a selected run's curves follow live, and
nothing the window does changes the store."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.gui.app import commands
from tests.conftest import TINY_CONFIG, wait_for


def digest(home: Path) -> str:
    """The bytes of the store's database files (runs.db and its WAL, if any)."""
    h = hashlib.sha256()
    for name in ("runs.db", "runs.db-wal"):
        path = home / name
        if path.exists():
            h.update(path.read_bytes())
    return h.hexdigest()


def test_watching_another_store_follows_its_runs_and_never_writes_it(qtbot, window, tmp_path, monkeypatch):
    errors: list[tuple[str, str]] = []
    monkeypatch.setattr(type(window.status), "show_error", lambda self, title, message: errors.append((title, message)))
    session = window.session
    cluster = RunStore(tmp_path / "shared")  # what rank 0 on a cluster node writes
    run = cluster.create_run(RunConfig.from_toml(TINY_CONFIG), name="on the cluster")
    cluster.set_status(run.id, "running")
    cluster.beat(run.id)
    cluster.log_metrics(run.id, [(1, "train/loss", 1.0, 0.0), (2, "train/loss", 0.9, 0.0)])

    assert commands.open_path(window.shell, str(tmp_path / "shared")) == "store"  # or File > Open run store…
    assert session.store.read_only and "watching" in window.windowTitle()
    assert window.run_list.run_ids() == [run.id]
    session.set_selection([run.id])
    qtbot.waitUntil(lambda: not window.curves_pane.curves.loading, timeout=5000)  # read off the GUI thread
    assert list(window.curves_pane.curves.series[run.id]["train/loss"].values) == [1.0, 0.9]

    cluster.log_metrics(run.id, [(3, "train/loss", 0.7, 0.0)])
    with qtbot.waitSignal(session.metrics, timeout=5000):  # the follower's own timer polls the store
        pass
    assert list(window.curves_pane.curves.series[run.id]["train/loss"].steps) == [1, 2, 3]
    second = cluster.create_run(RunConfig.from_toml(TINY_CONFIG), name="another job")
    with qtbot.waitSignal(session.runs_changed, timeout=5000):
        pass
    assert set(window.run_list.run_ids()) == {run.id, second.id}

    before = digest(tmp_path / "shared")
    assert session.train() is None  # training into a watched store is refused in words
    assert errors and "read-only" in errors[-1][1]
    session.follower.check()
    session.set_selection([second.id])
    assert digest(tmp_path / "shared") == before and len(RunStore(tmp_path / "shared").list()) == 2

    commands.switch_store(window.shell, None)  # Back to my run store
    assert not session.store.read_only and window.run_list.run_ids() == [] and window.windowTitle() == "Studio"


def test_a_folder_without_a_store_is_one_line(window, tmp_path, monkeypatch):
    errors: list[tuple[str, str]] = []
    monkeypatch.setattr(type(window.status), "show_error", lambda self, title, message: errors.append((title, message)))
    commands.switch_store(window.shell, str(tmp_path))
    assert errors == [("Cannot open the run store", f"there is no run store at {tmp_path} (no runs.db)")]
    assert not window.session.store.read_only and not (tmp_path / "runs.db").exists()


@pytest.mark.slow
def test_following_a_real_torchrun_run_from_another_terminal(qtbot, window, tmp_path):
    """Two torchrun agents (two "nodes" on this machine) write a shared store; the window watching it sees the run
    appear and its curves grow while it trains, and sees it finish."""
    from tests.integration.test_torchrun import CONFIG, free_port, torchrun

    shared, config, run_id = tmp_path / "shared", tmp_path / "run.toml", "torchrun-watched"
    config.write_text(CONFIG.replace("epochs = 12", "epochs = 150"))
    RunStore(shared).close()  # the store exists before the window opens it
    assert commands.open_path(window.shell, str(shared)) == "store"
    port = free_port()
    agents = [torchrun(config, shared, nnodes=2, node_rank=r, nproc=1, port=port, rdzv_id="watched") for r in (0, 1)]

    def shown() -> bool:
        qtbot.wait(200)
        return run_id in window.run_list.run_ids()

    lengths: list[int] = []

    def grew() -> bool:
        qtbot.wait(300)
        series = window.curves_pane.curves.series.get(run_id, {}).get("train/loss")
        lengths.append(len(series.steps) if series else 0)
        return len(set(lengths) - {0}) >= 3

    try:
        wait_for(shown, 120, "the run to appear in the list")
        window.session.set_selection([run_id])
        wait_for(grew, 120, "the curves to grow while it trains")
        assert lengths == sorted(lengths)
    finally:
        outs = [a.communicate(timeout=300)[0] for a in agents]
    assert all(a.returncode == 0 for a in agents), outs

    def ended() -> bool:
        qtbot.wait(200)
        return window.session.store.get(run_id).status == "finished"

    wait_for(ended, 30, "the run to end finished")
