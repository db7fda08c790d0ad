"""The Landscape tab on a finished run: compute a small grid in the background, see it, export it."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from studio.core.landscape import io
from studio.core.runs.store import RunStore
from studio.gui.tabs.landscape import LandscapeTab
from studio.gui.widgets.movie_file import MovieError
from tests.gui.conftest import new_session
from tests.unit.landscape_runs import SMALL, train_run


@pytest.fixture
def tab(qtbot, studio_home):
    run_dir = train_run(studio_home, SMALL)
    session = new_session(RunStore())
    widget = LandscapeTab(session)
    qtbot.addWidget(widget)
    widget.resize(1000, 650)
    widget.show()
    yield widget, run_dir
    widget.shutdown()
    session.shutdown(wait_s=2)


def _finish(qtbot, widget, timeout=90_000):
    qtbot.waitUntil(lambda: not widget.busy, timeout=timeout)


def test_tab_computes_a_small_grid_and_shows_the_image(qtbot, tab, tmp_path):
    widget, run_dir = tab
    assert widget.select_run(run_dir.name)
    assert [widget.checkpoint_box.itemText(i) for i in range(widget.checkpoint_box.count())][:2] == \
        ["final", "step 0 (initial)"]
    widget.resolution.setValue(7)
    widget.samples.setValue(200)
    widget.compute()
    assert widget.busy and widget.cancel_button.isEnabled() and not widget.compute_button.isEnabled()
    assert widget.session.running("landscape") == [widget.job]  # the Session follows the tab's job
    _finish(qtbot, widget)
    assert widget.status.text().startswith("Showing"), widget.status.text()
    image = widget.view.heatmap.image.image
    assert image.shape == (7, 7) and np.isfinite(image).all() and np.ptp(image) > 0
    assert len(widget.view.heatmap.isocurves) >= 3
    assert "centre loss" in widget.info.text() and "no BatchNorm" in widget.info.text()
    assert widget.saved_box.count() == 1 and widget.progress.value() == 1000
    widget.log_scale.setChecked(True)
    np.testing.assert_allclose(widget.view.heatmap.image.image, np.log10(widget.result.loss.T))
    png = widget.export_png(tmp_path / "map.png")
    assert png.stat().st_size > 1000
    npz = widget.export_npz(tmp_path / "grid.npz")
    np.testing.assert_array_equal(io.load(npz).loss, widget.result.loss)
    if not widget.view.surface.available:
        assert "not available" in widget.view.surface.fallback.text()


def test_trajectory_and_one_d_views(qtbot, tab):
    widget, run_dir = tab
    widget.select_run(run_dir.name)
    widget.kind_box.setCurrentIndex(widget.kind_box.findData("trajectory"))
    widget.resolution.setValue(5)
    widget.samples.setValue(200)
    widget.compute()
    _finish(qtbot, widget)
    path = widget.view.heatmap.path_item
    assert len(path.xData) == 4 and "PC 1" in widget.view.heatmap.plot.getAxis("bottom").labelText
    assert widget.trajectory_reel().count() == 4  # Record…: one checkpoint a frame
    widget.kind_box.setCurrentIndex(widget.kind_box.findData("1d"))
    widget.compute()
    _finish(qtbot, widget)
    assert widget.view.currentWidget() is widget.view.curves and widget.view.curves.curve_count() == 2
    with pytest.raises(MovieError, match="^a 1-D landscape is a curve, not a picture to animate: use Export PNG…$"):
        widget.trajectory_reel()


def test_cancel_and_errors(qtbot, tab):
    widget, run_dir = tab
    widget.select_run(run_dir.name)
    widget.resolution.setValue(301)
    widget.samples.setValue(0)
    widget.compute()
    qtbot.waitUntil(lambda: widget.job.fraction > 0.01, timeout=60_000)
    widget.cancel()
    _finish(qtbot, widget, timeout=20_000)
    assert widget.status.text() == "Cancelled." and widget.compute_button.isEnabled()
    errors = []
    widget.session.error.connect(lambda title, message: errors.append(message))
    widget.checkpoint_box.addItem("missing", "99999")
    widget.checkpoint_box.setCurrentIndex(widget.checkpoint_box.count() - 1)
    widget.resolution.setValue(5)
    widget.compute()
    _finish(qtbot, widget)
    assert errors and "no checkpoint at step 99999" in errors[0]
    assert multiprocessing.active_children() == []


def test_sharpness_button_and_the_logged_curve(qtbot, studio_home):
    run_dir = train_run(studio_home, SMALL + ["train.sharpness_every=1"])
    session = new_session(RunStore())
    widget = LandscapeTab(session)
    qtbot.addWidget(widget)
    widget.select_run(run_dir.name)
    assert len(widget.sharp_curve.xData) == 4 and widget.sharp_plot.isVisibleTo(widget)
    widget.samples.setValue(200)
    widget.compute_sharpness()
    _finish(qtbot, widget)
    assert widget.sharpness is not None and len(widget.sharpness["top_eigenvalues"]) == 3
    assert "top Hessian eigenvalues" in widget.info.text()
    session.shutdown(wait_s=2)


def test_live_snapshots_appear_while_training(qtbot, studio_home):
    from studio.core.config import RunConfig

    session = new_session(RunStore())
    widget = LandscapeTab(session)
    qtbot.addWidget(widget)
    session.config = RunConfig().with_overrides(SMALL + ["train.landscape_every=1", "train.epochs=4"])
    run_id = session.train()
    assert run_id and widget.run_box.currentData() == run_id  # follows the run just started
    qtbot.waitUntil(lambda: widget.result is not None and widget.result.meta.get("live"), timeout=90_000)
    assert widget.result.loss.shape == (21, 21) and widget.saved_box.count() >= 1
    qtbot.waitUntil(lambda: session.state == "idle", timeout=90_000)
    session.shutdown(wait_s=2)


def test_the_tab_draws_the_preview_then_the_refined_grid(qtbot, tab):
    widget, run_dir = tab
    assert widget.select_run(run_dir.name)
    widget.resolution.setValue(21)
    widget.samples.setValue(200)
    widget.compute()
    drawn = []  # what the heat map showed after each frame, and whether the job was still running
    widget.job.frame.connect(lambda _d: drawn.append((widget.view.heatmap.image.image.shape, widget.busy,
                                                      widget.info.text().split(":")[0])))
    _finish(qtbot, widget)
    assert widget.status.text().startswith("Showing"), widget.status.text()
    assert drawn[0] == ((11, 11), True, "Preview")
    assert all(shape == (21, 21) and busy and text == "Refining" for shape, busy, text in drawn[1:])
    assert len(drawn) >= 3 and widget.view.heatmap.image.image.shape == (21, 21)


def test_a_trajectory_draws_its_coarse_preview_with_the_path_first(qtbot, tab):
    widget, run_dir = tab
    assert widget.select_run(run_dir.name)
    widget.kind_box.setCurrentIndex(widget.kind_box.findData("trajectory"))
    widget.resolution.setValue(13)
    widget.samples.setValue(200)
    widget.compute()
    drawn = []  # (image shape, path points drawn, the info line's first word) after each frame
    widget.job.frame.connect(lambda _d: drawn.append((widget.view.heatmap.image.image.shape,
                                                      len(widget.view.heatmap.path_item.xData),
                                                      widget.info.text().split(":")[0])))
    _finish(qtbot, widget)
    assert widget.status.text().startswith("Showing"), widget.status.text()
    assert drawn and drawn[0][0] == (11, 11) and drawn[0][1] >= 2 and drawn[0][2] == "Preview"
    assert widget.view.heatmap.image.image.shape == (13, 13)


def test_the_tabs_landscape_forks_from_the_warm_back_end(qtbot, tab):
    from studio.engine.jobs import backend

    widget, run_dir = tab
    backend.start_warm()  # what the window does once it is shown
    try:
        assert widget.select_run(run_dir.name)
        widget.resolution.setValue(7)
        widget.samples.setValue(200)
        widget.compute()
        _finish(qtbot, widget)
        job = widget.job.job
        assert widget.status.text().startswith("Showing"), widget.status.text()
        assert job.ctx.get_start_method() == "forkserver" and job.ctx is backend.context(job.threads)
    finally:
        backend.stop_warm()


def test_the_spin_boxes_take_their_ranges_from_the_contract(tab):
    from studio.core.contracts import landscape as contract

    widget, _ = tab
    assert (widget.resolution.minimum(), widget.resolution.maximum()) == \
        (contract.RESOLUTION_MIN, contract.RESOLUTION_MAX)
    assert (widget.samples.minimum(), widget.samples.maximum()) == (contract.SAMPLES_MIN, contract.SAMPLES_MAX)
    assert (widget.span.minimum(), widget.span.maximum()) == (contract.SPAN_MIN, contract.SPAN_MAX)
    assert widget.resolution.value() == contract.DEFAULT_RESOLUTION
    widget.resolution.setValue(contract.RESOLUTION_MAX)
    assert widget.request().validate().resolution == contract.RESOLUTION_MAX  # the form's limits pass the engine's
