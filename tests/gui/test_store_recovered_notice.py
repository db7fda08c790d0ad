"""Issue 20.3: a run store whose runs.db was damaged is rebuilt when the GUI opens it, and the status bar says
so (where the old file is kept, how many runs and values came back); the run's curves are all there."""

from studio.core.config import RunConfig
from studio.core.host.paths import studio_home
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def test_status_bar_says_the_store_was_rebuilt(qtbot):
    home = studio_home()
    store = RunStore(home)
    run = store.create_run(RunConfig(), "tiny")
    store.log_metrics(run.id, [(s, "train/loss", 1.0 / s, 100.0 + s) for s in range(1, 26)])
    store.set_status(run.id, "finished")
    store.close()
    for extra in ("runs.db-wal", "runs.db-shm"):
        (home / extra).unlink(missing_ok=True)
    (home / "runs.db").write_bytes(b"")

    session = new_session(RunStore(home))
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    win.show()
    try:
        text = win.status.message.text()
        kept = list(home.glob("runs.db.corrupt-*"))
        assert len(kept) == 1
        assert "damaged" in text and win.status.details_button.isVisible()
        assert str(kept[0]) in win.status.details and "1 run and 25 logged values recovered" in win.status.details
        steps, values = session.store.metrics(run.id)["train/loss"]
        assert steps == list(range(1, 26)) and values[-1] == 1.0 / 25
        shown = []
        session.notice.connect(lambda t, d: shown.append(t))
        session.announce_store()  # said once
        assert shown == []
    finally:
        session.shutdown(wait_s=10)
