"""Issue 22, stale views: what a view shows belongs to what it names (the Landscape plot to the run in its Run
box), and a message of work that ended (importing, classifying, a scheduler) goes when the work ends."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.landscape import io
from studio.core.runs.store import RunStore
from studio.core.vocab import LandscapeKind
from studio.gui.app import commands
from studio.gui.tabs.landscape import LandscapeTab
from tests.gui.conftest import new_session


def fake_run(store: RunStore, name: str, loss_scale: float | None) -> str:
    """A run with a final checkpoint file and, when ``loss_scale`` is given, one saved 5×5 landscape."""
    info = store.create_run(RunConfig(), name=name)
    run_dir = store.get(info.id).dir
    final = layout.final_path(run_dir)
    final.parent.mkdir(parents=True, exist_ok=True)
    final.write_bytes(b"not read by the tab")
    if loss_scale is not None:
        x = np.linspace(-1, 1, 5)
        loss = loss_scale * (x[None, :] ** 2 + x[:, None] ** 2 + 1)
        io.save(io.Landscape(LandscapeKind.SURFACE, x, x, {"train/loss": loss}, meta={"checkpoint": "final"}), run_dir)
    return info.id


@pytest.fixture
def landscape_tab(qtbot, studio_home):
    store = RunStore()
    runs = {"a": fake_run(store, "a", 1.0), "b": fake_run(store, "b", 100.0), "c": fake_run(store, "c", None)}
    session = new_session(store)
    widget = LandscapeTab(session)
    qtbot.addWidget(widget)
    widget.show()
    yield widget, runs
    widget.shutdown()
    session.shutdown(wait_s=2)


def test_the_landscape_plot_follows_the_run_box(landscape_tab):
    widget, runs = landscape_tab
    assert widget.select_run(runs["a"])
    widget.open_result(widget.saved_box.itemData(0))
    assert widget.view.heatmap.image.image.max() < 10  # run a's landscape (scale 1)
    assert widget.select_run(runs["b"])  # another run with a saved landscape: its own is shown
    assert widget.result_path is not None and runs["b"] in str(widget.result_path)
    assert widget.view.heatmap.image.image.min() > 50  # run b's (scale 100), not a's
    assert widget.select_run(runs["c"])  # a run without one: an empty view and a hint, not b's plot
    assert widget.result is None and widget.view.heatmap.image_shape() == ()
    assert not widget.view.heatmap.isocurves and "No landscape of this run" in widget.info.text()


def test_a_failed_import_does_not_leave_importing_in_the_status_bar(qtbot, window, tmp_path):
    (tmp_path / "emptydir").mkdir()
    commands.import_path(window.shell, str(tmp_path / "emptydir"))
    assert "Importing emptydir" in window.status.message.text()
    qtbot.waitUntil(lambda: not window.shell.importer.busy, timeout=60_000)
    assert window.status.last_error is not None and window.status.last_error[0] == "Import failed"
    text = window.status.message.text()
    assert "Importing" not in text and "emptydir failed" in text, text


def test_the_queue_tab_forgets_a_scheduler_that_exited(qtbot, window):
    from studio.gui.tabs import queue as queue_tab

    tab = window.pages.tab("Queue")
    window.tabs.setCurrentWidget(tab)
    tab.lease_timer.setInterval(50)
    queue = window.session.queue
    assert queue.take_lease(4242)  # a scheduler serving the queue
    tab.refresh()
    assert "scheduler pid 4242" in tab.status.text()
    queue.release_lease(4242)  # it exits: no run changed, nothing told the tab
    qtbot.waitUntil(lambda: "no scheduler running" in tab.status.text(), timeout=5000)
    assert not tab.lease_timer.isActive()  # nothing shown to watch: no polling
    assert queue_tab.LEASE_CHECK_MS <= 5000
