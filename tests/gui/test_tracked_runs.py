"""Runs Studio did not train, in the window: a script's ``studio.track`` run grows live in the curves (through the
store follower, as a queued run does), and a folder of TensorBoard logs dropped on the window becomes runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import studio.track
from tests.gui.test_drop_import import drop

ROOT = Path(__file__).resolve().parents[2]


def test_a_tracked_script_grows_live_in_the_curves(qtbot, window, tmp_path: Path) -> None:
    session = window.session
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import sys, studio.track
        run = studio.track.init("my script", config={"lr": 0.01}, flush_s=0.1)
        print(run.id, flush=True)
        for step in range(3):
            run.log({"train/loss": 1.0 / (step + 1)}, step=step)
        run.flush()
        print("logged", flush=True)
        sys.stdin.readline()  # more when the test says so
        for step in range(3, 6):
            run.log({"train/loss": 1.0 / (step + 1)}, step=step)
        run.flush()
        print("logged", flush=True)
        sys.stdin.readline()
        run.finish()
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        run_id = proc.stdout.readline().strip()
        assert proc.stdout.readline().strip() == "logged"
        qtbot.waitUntil(lambda: run_id in window.run_list.run_ids(), timeout=10_000)  # the follower's next look
        session.set_selection([run_id])
        curves = window.curves_pane.curves
        qtbot.waitUntil(lambda: not curves.loading and run_id in curves.series, timeout=10_000)
        assert list(curves.series[run_id]["train/loss"].steps) == [0, 1, 2]
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "logged"
        qtbot.waitUntil(lambda: len(curves.series[run_id]["train/loss"].steps) == 6, timeout=10_000)
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stdin.close()
    qtbot.waitUntil(lambda: session.store.get(run_id).status == "finished", timeout=10_000)


def test_a_dropped_tensorboard_folder_becomes_selected_runs(qtbot, window, tmp_path: Path) -> None:
    pytest.importorskip("tbparse")
    from tests.track.tb_logs import summary_writer_run

    summary_writer_run(tmp_path / "logs" / "a", steps=5, histograms=False)
    summary_writer_run(tmp_path / "logs" / "b", steps=5, histograms=False)
    assert drop(window, tmp_path / "logs")
    importer = window.shell.log_importer
    qtbot.waitUntil(lambda: not importer.busy and len(window.session.selected_runs()) == 2, timeout=60_000)
    assert "Imported 2 TensorBoard runs" in window.status.message.text()
    names = {window.session.store.get(r).name for r in window.run_list.run_ids()}
    assert names == {"logs/a", "logs/b"}


def test_a_tensorboard_import_is_a_session_task_with_progress_and_cancel(qtbot, window, tmp_path: Path) -> None:
    """Issue 33: the import runs as a background task the Session follows (not a plain thread): its dialog can
    cancel it, and a cancelled import says so and leaves no half-imported run."""
    pytest.importorskip("tbparse")
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    from studio.core.contracts.jobs import LogImportRequest
    from studio.gui.app import commands
    from tests.track.tb_logs import summary_writer_run

    for name in ("a", "b", "c"):
        summary_writer_run(tmp_path / "logs" / name, steps=5, histograms=False)
    started: list = []
    window.session.job_started.connect(started.append)
    commands.import_logs(window.shell, str(tmp_path / "logs"))
    importer = window.shell.log_importer
    assert [type(h.request) for h in started] == [LogImportRequest] and started[0].kind == "import"
    assert importer.busy and importer.dialog is not None and importer.dialog.objectName() == "log_import_progress"
    with qtbot.waitSignal(importer.cancelled, timeout=60_000):
        qtbot.mouseClick(importer.dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)  # its Cancel button
    assert importer.dialog is None and not importer.busy
    assert "cancelled" in window.status.message.text()
    runs = window.session.store.list()
    assert all(r.status == "finished" for r in runs) and len(runs) < 3  # whole runs only, and it did stop


def test_opening_a_tracked_run_selects_it_and_keeps_the_settings(window, studio_home: Path) -> None:
    from studio.gui.app import commands

    with studio.track.init("outside") as run:
        run.log({"x": 1.0})
    window.session.runs_changed.emit()
    before = window.session.config.to_toml()
    assert commands.open_path(window.shell, str(run.dir)) == "run"
    assert window.session.config.to_toml() == before  # an external config is no recipe to train
    assert window.session.selected_runs() == [run.id]


def test_the_landscape_tab_says_an_attached_models_critical_batch_size(qtbot, studio_home: Path) -> None:
    from PySide6.QtCore import Qt

    from studio.core.runs.store import RunStore
    from studio.gui.tabs.landscape import LandscapeTab
    from tests.gui.conftest import new_session
    from tests.track.test_attached_analyses import _train_and_save

    run = _train_and_save(steps=4)  # early in training: the gradient's signal is strong
    session = new_session(RunStore())
    tab = LandscapeTab(session)
    qtbot.addWidget(tab)
    tab.show()
    tab.select_run(run.id)
    qtbot.mouseClick(tab.noise_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.busy and "critical batch size" in tab.info.text(), timeout=120_000)
    assert tab.info.text().startswith("Your model's critical batch size ≈")
    tab.shutdown()
    session.shutdown(wait_s=2)


def test_an_imported_tensorboard_runs_histograms_are_in_the_histograms_view(qtbot, tmp_path: Path,
                                                                              studio_home: Path) -> None:
    pytest.importorskip("tbparse")
    from studio.core.runs.store import RunStore
    from studio.core.runs.tensorboard_import import import_logs
    from studio.gui.tabs.histograms import HistogramsTab
    from tests.gui.conftest import new_session
    from tests.track.tb_logs import summary_writer_run

    summary_writer_run(tmp_path / "logs" / "exp", steps=20, hparams=False)
    (run_id,) = import_logs(tmp_path / "logs", RunStore()).imported
    session = new_session(RunStore())
    try:
        tab = HistogramsTab(session)
        qtbot.addWidget(tab)
        tab.resize(1000, 700)
        tab.show()
        assert tab.run_box.currentData() == run_id
        assert [tab.layer_box.itemText(i) for i in range(tab.layer_box.count())] == ["fc.weight"]
        assert tab.weights.shown.shape == (60, 4)  # value bins × the 4 recorded steps
    finally:
        session.shutdown(wait_s=10)


def test_the_curves_key_says_a_tracked_run_was_logged_by_its_script(qtbot, window, studio_home: Path) -> None:
    """Issue 33: its spacing is the script's, not Studio's ``train.metric_interval``."""
    with studio.track.init("outside", flush_s=0.05) as run:
        for step in range(0, 50, 5):
            run.log({"train/loss": 1.0 / (step + 1)}, step=step)
    window.session.runs_changed.emit()
    window.session.set_selection([run.id])
    curves = window.curves_pane.curves
    qtbot.waitUntil(lambda: not curves.loading and run.id in curves.series, timeout=10_000)
    qtbot.waitUntil(lambda: "every 5 steps" in curves.key.text(), timeout=10_000)
    assert "every 5 steps (as your script logged them)" in curves.key.text()
    assert "train.metric_interval" not in curves.key.text()
