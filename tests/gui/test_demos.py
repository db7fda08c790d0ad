"""The Teaching lab: each demo computes in the background process, animates, and draws data; presentation mode."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

import numpy as np
import pytest

from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.gui.demos.lab import VIEWS, TeachingLab
from studio.gui.tabs import find
from tests.gui.conftest import new_session

# small settings: the point is the plumbing, the numbers are tested in tests/unit/test_demos_*.py
SMALL = {
    "optimizer_race": {"steps": 60},
    "linear_neuron": {"steps": 60},
    "playground": {"steps": 120, "frame_every": 20, "n_samples": 200, "resolution": 24},
    "large_batch": {"batch_sizes": "32,256", "epochs": 1, "train_samples": 512, "test_samples": 200,
                    "hessian_samples": 128, "widths": "16", "evals": 4, "threads": 1},
    "noise_scale": {"dataset": "moons", "batch_size": 64, "small_batch": 8, "epochs": 2, "widths": "16",
                    "frame_every": 1, "threads": 1},
    "regularisation": {"dataset": "moons", "epochs": 3, "train_samples": 100, "val_samples": 100, "widths": "16",
                       "batch_size": 32, "threads": 1},
    "edge_of_stability": {"n_samples": 200, "widths": "16", "steps": 40, "sharpness_every": 10, "lanczos_iters": 8,
                          "threads": 1},
}


@pytest.fixture(scope="module", autouse=True)
def warm():
    """The warm back end for the module (PyTorch imported once, by its server)."""
    backend.start_warm()
    yield
    backend.stop_warm()


@pytest.fixture
def session(qtbot):
    s = new_session(RunStore())
    yield s
    s.shutdown(wait_s=5)
    assert multiprocessing.active_children() == []


@pytest.fixture
def lab(qtbot, session):
    tab = TeachingLab(session)
    tab.resize(1400, 850)
    qtbot.addWidget(tab)
    tab.show()
    return tab


def computed(qtbot, lab, name):
    view = lab.open(name)
    view.set_params(SMALL[name])
    view.compute()
    assert lab.session.running("demo") == [view.task]  # the Session follows the view's job
    if view.endless:  # it trains until stopped: a few frames are enough (live ones: the recording is gone)
        qtbot.waitUntil(lambda: view.recording is None and view.frame_count() >= 3, timeout=120_000)
        return view
    qtbot.waitUntil(lambda: not view.busy, timeout=120_000)
    assert view.task.state == "finished", view.error_text
    return view


def points(item) -> int:
    data = item.getData() if hasattr(item, "getData") else (item.data["x"], item.data["y"])
    return 0 if data[0] is None else int(np.count_nonzero(np.isfinite(np.asarray(data[0], dtype=float))))


@pytest.mark.parametrize("name", list(VIEWS))
def test_each_demo_runs_a_few_frames_and_its_plots_hold_data(qtbot, lab, name):
    view = computed(qtbot, lab, name)
    count = view.frame_count()
    assert count >= 2
    if view.endless:  # the playground trains live (test_the_playground_learns_live_…): it shows the newest frame
        assert view.player.position == view.frame_count() - 1
        items = view.data_items()
        assert items and all(points(item) > 0 for item in items), [points(i) for i in items]
        assert view.caption.text()
        view.stop()
        qtbot.waitUntil(lambda: not view.busy, timeout=30_000)
        assert view.task.state == "stopped"
        return
    view.player.pause()
    view.player.seek(0)
    for _ in range(3):
        view.player.step()
    assert view.player.position == min(3, count - 1)
    view.player.seek(count - 1)
    items = view.data_items()
    assert items and all(points(item) > 0 for item in items), [points(i) for i in items]
    assert view.caption.text()


def test_the_playground_learns_live_and_a_changed_lr_reaches_the_running_training(qtbot, lab):
    view = computed(qtbot, lab, "playground")
    frames = []
    view.panel.frame.connect(frames.append)  # what the running child sends from now on
    job = view.task.job
    view.param_widgets["lr"].setValue(0.001)  # the form's spin box, while it trains
    assert view.pending == {"lr": 0.001}  # debounced: sent once the form is still
    qtbot.waitUntil(lambda: any("lr 0.001" in n for f in frames for n in f.get("notes", ())), timeout=60_000)
    assert view.task.job is job and view.busy  # the same training, not a restart
    noted = next(f for f in frames if f.get("notes"))
    assert "lr 0.001" in view.status.text() and len(view.marks) == 1 and view.marks[0].value() == noted["changed_at"]
    shown = view.image.image.copy()
    qtbot.waitUntil(lambda: view.frames[-1]["step"] > noted["step"] + 40, timeout=60_000)
    assert view.player.position == view.frame_count() - 1  # the boundary redraws with the newest frame
    assert not np.array_equal(view.image.image, shown), (noted["step"], view.frames[-1]["step"], view.frames[-1])
    view.set_presentation(True)  # a restyle while the loss spans (0, 1) froze a ×1000 SI scale: "0.5" read "500"
    view.set_presentation(False)
    assert view.curves.getAxis("left").autoSIPrefixScale == 1.0
    field = view.param_widgets["widths"]
    field.setText("16,17")
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: view.frames[-1].get("widths") == [16, 17], timeout=60_000)
    steps = [f["step"] for f in view.frames]
    assert steps == sorted(steps) and steps[0] == 0  # one training went on: no restart from step 0
    lab.open("optimizer_race")  # out of sight: it pauses itself (no core kept busy by a forgotten playground)
    qtbot.waitUntil(lambda: not view.player.playing and view.status.text().startswith("Paused"), timeout=30_000)
    assert lab.open("playground") is view
    view.player.play_button.click()  # Play: on from where it was
    qtbot.waitUntil(lambda: view.player.playing and view.status.text() == "Training…", timeout=30_000)
    view.player.play_button.click()  # Pause
    qtbot.waitUntil(lambda: not view.player.playing and view.status.text().startswith("Paused"), timeout=30_000)
    paused_at = view.frames[-1]["step"]
    qtbot.wait(500)  # the behaviour under test: paused, no frame comes in this window
    assert view.frames[-1]["step"] == paused_at
    view.player.step_button.click()
    qtbot.waitUntil(lambda: view.frames[-1]["step"] == paused_at + 20, timeout=30_000)
    view.player.restart_button.click()  # Reset: new weights, step 0, still paused
    assert view.task.job is not job
    qtbot.waitUntil(lambda: view.frame_count() >= 1, timeout=60_000)
    qtbot.wait(500)  # still paused after the reset: no second frame comes in this window
    assert [f["step"] for f in view.frames] == [0] and view.marks == []
    view.stop()
    qtbot.waitUntil(lambda: not view.busy, timeout=30_000)


def test_the_lr_slider_moved_while_they_race_changes_that_racers_lr_from_the_next_step(qtbot, lab):
    view = lab.open("optimizer_race")
    view.set_params({"optimizers": "gd(lr=0.5); gd(lr=0.5)", "steps": 150})
    view.compute()
    qtbot.waitUntil(lambda: view.frame_count() >= 10 and view.lr_racer.count() == 2, timeout=60_000)
    assert view.busy and view.result is None  # racing, frames streamed
    job = view.task.job
    view.set_lr_scale(0, 0.1)  # lr × 0.1 for the first racer: the combo, then the slider
    qtbot.waitUntil(lambda: not view.busy, timeout=60_000)
    assert view.task.job is job and view.task.state == "finished"  # the same race went on
    gaps = view.result["gaps"]
    slowed = int(np.argmax(gaps[0] != gaps[1]))  # where the two identical racers part
    assert 10 <= slowed < 150 and gaps[0, -1] > 1e3 * gaps[1, -1]  # racer 0 crawls at lr 0.05 from then on
    assert view.lr_scale == {0: pytest.approx(0.1)}
    view.set_lr_scale(1, 10.0)  # after the race: race again with both factors from the first step
    qtbot.waitUntil(lambda: view.task.job is not job and not view.busy, timeout=60_000)
    again = view.result["gaps"]
    assert again[0, 1] < again[0, 0] < again[1, 1]  # lr 0.05 creeps down from step 1; lr 5 > 2/λ_max climbs


def test_play_advances_the_animation(qtbot, lab):
    view = computed(qtbot, lab, "optimizer_race")
    view.player.seek(0)
    view.player.play()
    qtbot.waitUntil(lambda: view.player.position >= 5, timeout=5_000)
    view.player.pause()
    shown = view.player.position
    assert points(view.path_items[0]) == shown + 1  # the path is drawn up to the current step


def test_a_parameter_change_recomputes_the_race(qtbot, lab):
    view = computed(qtbot, lab, "optimizer_race")
    view.param_widgets["function"].setCurrentText("rosenbrock")  # the form edits the parameter
    qtbot.waitUntil(lambda: view.result is not None and view.result["summary"]["function"] == "rosenbrock",
                    timeout=60_000)


def test_the_add_menu_puts_a_catalog_optimizer_in_the_race(qtbot, lab):
    view = computed(qtbot, lab, "optimizer_race")
    assert view.params["optimizers"] == "auto"
    names = [a.text() for a in view.add_menu.actions() if a.text()]
    assert "lamb" in names and "newton" in names and names[-1].startswith("auto")
    next(a for a in view.add_menu.actions() if a.text() == "nadam").trigger()
    field = view.param_widgets["optimizers"]
    assert field.text().endswith("; nadam(lr=0.3)") and field.text().startswith("gd(lr=1.9)")
    assert view.params["optimizers"] == field.text()
    qtbot.waitUntil(lambda: view.result is not None and "nadam(lr=0.3)" in view.result["labels"], timeout=60_000)
    view.add_menu.actions()[-1].trigger()  # back to the preset
    assert field.text() == "auto" and view.params["optimizers"] == "auto"


def test_stop_cancels_a_long_computation(qtbot, lab):
    view = lab.open("large_batch")
    view.set_params({**SMALL["large_batch"], "epochs": 500})
    view.compute()
    qtbot.waitUntil(lambda: view.task.state == "running" and view.panel.bar.value() > 0, timeout=60_000)
    view.stop()
    qtbot.waitUntil(lambda: not view.busy, timeout=30_000)
    assert view.task.state == "stopped" and view.status.text() == "Stopped."


def test_the_large_batch_lab_draws_the_first_batch_sizes_curve_while_it_trains(qtbot, lab):
    """The first frame is the first batch size's accuracy curve, drawn (and redrawn) before that batch size ends."""
    view = lab.open("large_batch")
    drawn: list[tuple[int, int]] = []  # (finished runs, points of the first accuracy curve) at each draw
    show = view.show_frame

    def recording(index: int) -> None:
        show(index)
        drawn.append((len(view.runs), points(view.curve_items[0][0]) if view.curve_items else 0))

    view.show_frame = recording
    view.player.frame.disconnect()
    view.player.frame.connect(view.show_frame)
    view.set_params({**SMALL["large_batch"], "epochs": 4, "evals": 16, "until_train_acc": 0.0})
    view.compute()
    qtbot.waitUntil(lambda: not view.busy, timeout=120_000)
    assert view.task.state == "finished", view.error_text
    live = [n for runs, n in drawn if runs == 0]
    assert live and live[0] > 0 and max(live) > live[0]  # drawn before the first run ended, and growing
    assert view.frame_count() == 3  # two batch sizes and the interpolation


def test_errors_reach_the_view_not_a_traceback(qtbot, lab):
    view = lab.open("optimizer_race")
    view.set_params({"optimizers": "gd(speed=3)"})
    view.compute()
    qtbot.waitUntil(lambda: not view.busy, timeout=60_000)
    assert view.task.state == "failed" and "speed" in view.status.text()


def test_presentation_mode_enlarges_hides_advanced_controls_and_goes_black_on_white(qtbot, lab):
    view = lab.open("large_batch")
    normal_size = view.font().pointSize()
    lab.set_presentation(True)
    assert view.font().pointSize() > normal_size
    hidden = [p.name for row, p in enumerate(view.entry.params) if not view.form.isRowVisible(row)]
    assert "hessian_samples" in hidden and "batch_sizes" not in hidden
    assert view.graphics.backgroundBrush().color().name() == "#ffffff"
    later = lab.open("playground")  # built after the switch: presentation too
    assert later.presentation and later.font().pointSize() > normal_size
    lab.set_presentation(False)
    assert view.font().pointSize() == normal_size
    assert all(view.form.isRowVisible(row) for row in range(len(view.entry.params)))


def test_the_lab_is_a_main_window_tab_and_imports_without_torch():
    assert find("teaching_lab").target == "studio.gui.demos.lab:TeachingLab"
    code = "import sys, studio.gui.demos.lab; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})
    assert out.stdout.strip() == "False"
