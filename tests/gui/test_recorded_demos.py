"""A Teaching-lab demo opens on the recording Studio ships: drawn at once, nothing computing, a badge saying when it
was recorded; a changed setting is named on the badge; Compute runs it live, the recording staying until the first
live frame; a computation that ends without one leaves the recording (and its badge) as it was."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from studio.core.demos import recordings
from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.gui.demos.lab import VIEWS, TeachingLab
from tests.gui.conftest import new_session


def points(item) -> int:
    data = item.getData() if hasattr(item, "getData") else (item.data["x"], item.data["y"])
    return 0 if data[0] is None else int(np.count_nonzero(np.isfinite(np.asarray(data[0], dtype=float))))


@pytest.fixture
def session(qtbot):
    s = new_session(RunStore())
    yield s
    s.shutdown(wait_s=5)
    assert multiprocessing.active_children() == []


@pytest.fixture
def lab(qtbot, session):
    tab = TeachingLab(session)
    tab.resize(1280, 800)
    qtbot.addWidget(tab)
    tab.show()
    return tab


@pytest.mark.parametrize("name", list(VIEWS))
def test_a_demo_opens_drawn_from_its_recording_without_computing(lab, name):
    view = lab.open(name)
    assert view.recording is not None, f"{name} ships no recording (studio demo --record-all resources/demos)"
    assert not view.busy and lab.session.running("demo") == []
    assert view.frame_count() > 0 and view.result is not None
    assert not view.empty.shown
    assert sum(points(item) for item in view.data_items()) > 0, "the recording is drawn"
    assert view.badge.isVisible() and view.badge.text().startswith(f"Recorded on {view.recording.date}")
    assert f"press {view.compute_button.text()} to run it live here" in view.badge.text()


def test_a_changed_setting_is_named_on_the_badge(lab):
    view = lab.open("noise_scale")
    view.set_param("lr", 0.05)
    assert "other settings than yours (lr)" in view.badge.text()
    view.set_param("lr", recordings.default_params("noise_scale")["lr"])
    assert "other settings" not in view.badge.text()


@pytest.fixture
def warm():
    backend.start_warm()
    yield
    backend.stop_warm()


def test_compute_runs_it_live_over_the_recording(qtbot, lab, warm):
    view = lab.open("optimizer_race")
    recorded = view.result
    drawn = points(view.path_items[0])
    view.compute()
    assert view.busy and "Computing live" in view.badge.text()
    assert points(view.path_items[0]) == drawn, "the recording stays until the first live frame"
    qtbot.waitUntil(lambda: not view.busy, timeout=120_000)
    assert view.task.state == "finished", view.error_text
    assert view.recording is None and not view.badge.isVisible()
    assert view.result is not recorded and view.frame_count() == view.params["steps"] + 1


def test_a_computation_that_fails_before_a_frame_leaves_the_recording(qtbot, lab, warm):
    view = lab.open("optimizer_race")
    drawn = points(view.path_items[0])
    view.set_param("optimizers", "gd(lr=")  # refused in the child, before any frame
    view.compute()
    qtbot.waitUntil(lambda: not view.busy, timeout=60_000)
    assert view.task.state == "failed"
    assert view.recording is not None and view.badge.isVisible()
    assert "other settings than yours (optimizers)" in view.badge.text()
    assert points(view.path_items[0]) == drawn
