"""The main window: settings panels on the left, curves and the run list in tabs, Train/Pause/Stop."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QTabWidget,
    QToolBar,
    QWidget,
)

from studio import __version__
from studio.gui.panels.hardware import BackendProbe
from studio.gui.panels.run_list import RunList
from studio.gui.panels.settings_panels import SettingsPanels
from studio.gui.plots.curves import CurvesView
from studio.gui.session import Session
from studio.gui.tabs import EXTRA_TABS


class MainWindow(QMainWindow):
    def __init__(self, session: Session, probe_backend: bool = True) -> None:
        super().__init__()
        self.session = session
        self.setWindowTitle("Studio")
        self.resize(1280, 800)
        self.setAcceptDrops(True)
        self.last_error: tuple[str, str] | None = None
        # Asked before closing during a run; tests replace it.
        self.confirm_close: Callable[[], bool] = self._ask_close
        self._run_clock: dict[str, tuple[float, int]] = {}

        self.settings = SettingsPanels(session)
        self.curves = CurvesView()
        self.curves.setObjectName("curves")
        self.run_list = RunList(session)
        training = QSplitter(Qt.Orientation.Vertical)
        training.addWidget(self.curves)
        training.addWidget(self.run_list)
        training.setSizes([560, 200])
        self.tabs = QTabWidget()
        self.tabs.addTab(training, "Training")
        for title, target in EXTRA_TABS:
            self.tabs.addTab(self._make_tab(target), title)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.settings)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([340, 940])
        self.setCentralWidget(self.splitter)

        self._make_actions()
        self._make_status_bar()
        session.state_changed.connect(self._on_state)
        session.status_text.connect(self.show_message)
        session.error.connect(self.show_error)
        session.metrics.connect(self._on_metrics)
        session.progress.connect(self._on_progress)
        session.run_started.connect(self._on_started)
        session.run_ended.connect(self._on_ended)
        session.selection_changed.connect(self._show_selection)
        self._on_state("idle")
        self.probe = None
        if probe_backend:
            self.probe = BackendProbe(self)
            self.probe.ready.connect(self._backend_ready)
            self.probe.failed.connect(lambda msg: self.show_error("Training back end", msg))
            self.probe.start_probe()

    # --- building --------------------------------------------------------------------------
    def _make_tab(self, target: str) -> QWidget:
        module, _, name = target.partition(":")
        try:
            return getattr(importlib.import_module(module), name)(self.session, self)
        except Exception as err:  # noqa: BLE001 - a broken tab must not take the window down
            label = QLabel(f"This tab could not be loaded: {err}")
            label.setWordWrap(True)
            return label

    def _action(self, text: str, shortcut: str | QKeySequence | None, slot: Callable, tip: str) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        action.setToolTip(f"{tip} ({QKeySequence(shortcut).toString()})" if shortcut else tip)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        self.train_action = self._action("Train", "Ctrl+Return", self.session.train, "Start training")
        self.pause_action = self._action("Pause", "Space", self._toggle_pause, "Pause or resume the run")
        self.stop_action = self._action("Stop", "Esc", self.session.stop, "Stop the run and save a checkpoint")
        self.import_action = self._action("Import data…", "Ctrl+I", self._import_dialog,
                                          "Import a dataset: a folder of images, a zip, CSV, NPZ or IDX file")
        self.quit_action = self._action("Quit", QKeySequence.StandardKey.Quit, self.close, "Quit Studio")
        self.about_action = self._action("About Studio", None, self._about, "Versions and licence")
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for a in (self.train_action, self.pause_action, self.stop_action):
            toolbar.addAction(a)
        self.addToolBar(toolbar)
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(self.import_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        run_menu = menu.addMenu("&Run")
        for a in (self.train_action, self.pause_action, self.stop_action):
            run_menu.addAction(a)
        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self.about_action)

    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel("Ready")
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("progress")
        self.progress_bar.setMaximumWidth(220)
        self.progress_bar.setVisible(False)
        self.eta_label = QLabel("")
        self.eta_label.setObjectName("eta")
        self.backend_label = QLabel("Back end: starting…")
        self.backend_label.setToolTip("PyTorch loads in the background; the window does not wait for it")
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.eta_label)
        bar.addPermanentWidget(self.progress_bar)
        bar.addPermanentWidget(self.backend_label)

    # --- reactions -------------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.status_label.setText(text)

    def show_error(self, title: str, message: str) -> None:
        """A non-blocking dialog with the message (the window stays usable)."""
        self.last_error = (title, message)
        self.status_label.setText(f"{title}: {message}")
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()

    def _backend_ready(self, info: dict) -> None:
        self.settings.hardware.set_backend(info)
        gpus = len(info.get("gpus", []))
        self.backend_label.setText(f"Back end ready: PyTorch {info.get('torch')}, {gpus} GPU{'s' if gpus != 1 else ''}")

    def _on_state(self, state: str) -> None:
        self.train_action.setEnabled(state == "idle")
        self.stop_action.setEnabled(state != "idle")
        self.pause_action.setEnabled(state != "idle")
        self.pause_action.setText("Resume" if state == "paused" else "Pause")
        self.settings.setEnabled(state == "idle")
        if state == "idle":
            self.progress_bar.setVisible(False)
            self.eta_label.setText("")

    def _toggle_pause(self) -> None:
        if self.session.state == "paused":
            self.session.resume()
        elif self.session.state == "running":
            self.session.pause()

    def _on_started(self, run_id: str) -> None:
        self.progress_bar.setVisible(True)
        self.progress_bar.setValue(0)
        self._run_clock.pop(run_id, None)

    def _on_ended(self, run_id: str, status: str, message: str) -> None:
        info = self.session.store.get(run_id)
        acc = info.summary.get("test_acc")
        acc_txt = f", test accuracy {acc:.4f}" if isinstance(acc, float) and acc == acc else ""
        if status != "failed":
            self.show_message(f"Run {run_id} {status}{acc_txt}")

    def _on_metrics(self, run_id: str, rows: list) -> None:
        self.curves.add_rows(run_id, rows)

    def _on_progress(self, run_id: str, p: dict) -> None:
        step, total = p.get("step", 0), p.get("total_steps", 0)
        if total:
            self.progress_bar.setMaximum(total)
            self.progress_bar.setValue(step)
        now = time.monotonic()
        t0, s0 = self._run_clock.setdefault(run_id, (now, step))
        rate = (step - s0) / (now - t0) if now > t0 else 0
        eta = f"ETA {(total - step) / rate:.0f} s" if rate > 0 and total else "ETA …"
        self.eta_label.setText(f"epoch {p.get('epoch')}/{p.get('epochs')} · step {step}/{total} · {eta}")

    def _show_selection(self, run_ids: list[str]) -> None:
        """Overlay the selected runs' curves (from the run store; live rows keep arriving)."""
        store = self.session.store
        data, labels = {}, {}
        for run_id in run_ids:
            data[run_id] = store.metrics(run_id)
            labels[run_id] = run_id.rsplit("-", 1)[0][-6:] + "-" + run_id.rsplit("-", 1)[-1]
        self.curves.show_runs(data, labels)

    # --- files -----------------------------------------------------------------------------
    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import a dataset", "",
                                              "Datasets (*.zip *.tar.gz *.tgz *.csv *.npz *.npy *.gz *.idx*);;All (*)")
        if path:
            self.import_path(path)

    def import_path(self, path: str) -> None:
        try:
            from studio.gui.data_import import ImportController
        except ImportError:
            self.show_error("Import", "Importing datasets is not available in this version.")
            return
        if not hasattr(self, "_importer"):
            self._importer = ImportController(self.session, self)
        self._importer.import_path(path)

    def dragEnterEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.import_path(url.toLocalFile())
        event.acceptProposedAction()

    def _about(self) -> None:
        from PySide6 import __version__ as qt_version

        QMessageBox.about(self, "About Studio", f"Studio {__version__}\nQt (PySide6) {qt_version}\n"
                          f"PyTorch {self.settings.hardware.info.get('torch', 'not loaded yet')}\n"
                          f"Python {sys.version.split()[0]}")

    # --- closing ---------------------------------------------------------------------------
    def _ask_close(self) -> bool:
        answer = QMessageBox.question(self, "Quit Studio", "A run is in progress. Stop it (saving a checkpoint) "
                                      "and quit?")
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self.session.jobs and not self.confirm_close():
            event.ignore()
            return
        self.show_message("Stopping runs…")
        self.session.shutdown()
        if self.probe is not None and self.probe.state() != self.probe.ProcessState.NotRunning:
            self.probe.kill()
            self.probe.waitForFinished(1000)
        event.accept()


def run_gui(argv: list[str]) -> int:
    """Open the main window (``studio`` with no command)."""
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setApplicationName("Studio")
    app.setOrganizationName("Studio")
    window = MainWindow(Session())
    window.show()
    return app.exec()
