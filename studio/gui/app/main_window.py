"""The main window: settings panels on the left, curves and the run list in tabs, Train/Pause/Stop.

Also the desktop habits: menus and shortcuts (declared in actions.py), the status bar (status_bar.py),
``open_path`` (``studio PATH``, File > Open run…, a drop, a second launch handing over a path; what the path is,
core/runs/open_target.py decides), remembered geometry/choices/recent files/theme (settings_store.py), light and
dark themes (theme.py), presentation mode (F11). It composes and reacts: the file dialogs and questions are
dialogs.py, what it reads of the run store comes through the Session, and ``run_gui`` (the application and the
single-instance hand-off) is start.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import shiboken6
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio import __version__
from studio.core.errors import StudioError
from studio.core.host.paths import resource
from studio.core.runs import open_target
from studio.core.vocab import JobState
from studio.gui.app import dialogs
from studio.gui.app.actions import MENUS, build_actions
from studio.gui.app.navigation import Navigation
from studio.gui.app.settings import SettingsStore
from studio.gui.app.status_bar import StatusBar
from studio.gui.panels.hardware import BackendProbe
from studio.gui.panels.run_list import RunList
from studio.gui.panels.settings_panels import SettingsPanels
from studio.gui.session import theme
from studio.gui.session.messages import run_progress
from studio.gui.session.session import Session
from studio.gui.tabs import EXTRA_TABS, GROUPS, TabSpec, find, grouped
from studio.gui.widgets import wheel_guard

if TYPE_CHECKING:
    from studio.gui.plots.curves import CurvesView
    from studio.gui.tabs.evaluation import EvaluationTab

THEME_LABELS = {"system": "Follow the system", "light": "Light", "dark": "Dark"}


class TabPlaceholder(QWidget):
    """Stands in the tab widget for a tab not yet shown; MainWindow replaces it with the real tab on first view."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName(f"placeholder_{title}")


CURVES_AFTER_MS = 30  # the Training tab's plots are built this long after the window shows (start-up)


def app_icon() -> QIcon:
    """Studio's icon at every size shipped in resources/icons (the SVG scales where QtSvg is present)."""
    icon = QIcon()
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        path = resource("icons", f"studio-{size}.png")
        if path.exists():
            icon.addFile(str(path))
    return icon


def documentation_path() -> Path:
    """The README that documents Studio (beside resources/ in a checkout and inside the bundle)."""
    return resource().parent / "README.md"


def default_size() -> QSize:
    """1280×800, or the screen's free area when it is smaller (a 1024×768 projector): never off screen."""
    size = QSize(1280, 800)
    screen = QGuiApplication.primaryScreen()
    return size.boundedTo(screen.availableGeometry().size()) if screen is not None else size


class MainWindow(QMainWindow):
    # one QAction per row of the actions table (gui/app/actions.py), set by _make_actions as ``<id>_action``
    # (tests/gui/test_actions.py checks that this list and the table agree)
    train_action: QAction
    pause_action: QAction
    stop_action: QAction
    queue_action: QAction
    cluster_action: QAction
    import_action: QAction
    import_folder_action: QAction
    open_action: QAction
    open_store_action: QAction
    own_store_action: QAction
    export_action: QAction
    quit_action: QAction
    presentation_action: QAction
    docs_action: QAction
    about_action: QAction

    def __init__(self, session: Session, probe_backend: bool = True, prefs: SettingsStore | None = None) -> None:
        super().__init__()
        theme.track(self)  # a theme change restyles this window's plots while it is shown
        self.session = session
        self.prefs = prefs or SettingsStore()
        self.prefs.restore_choices(session)  # the last dataset/model/optimizer, before the forms are built
        self.setWindowTitle("Studio")
        self.setWindowIcon(app_icon())
        self.resize(default_size())
        self.setAcceptDrops(True)
        # Asked before closing during a run; tests replace it.
        self.confirm_close: Callable[[], bool] = lambda: dialogs.stop_and_quit(self)
        # Asked before training when model and data do not fit (core/config/fit_check.py); tests replace it.
        self.confirm_warnings: Callable[[list[str]], bool] = lambda w: dialogs.train_anyway(self, w)
        self._last_progress: dict | None = None  # the run's last progress report (the ETA line while paused)

        self.settings = SettingsPanels(session)
        # the curves (pyqtgraph) are built just after the window shows, or when first asked for (``curves``)
        self._curves: CurvesView | None = None
        self.curves_holder = QWidget()
        self.curves_holder.setObjectName("curves_holder")
        self._curves_layout = QVBoxLayout(self.curves_holder)
        self._curves_layout.setContentsMargins(0, 0, 0, 0)
        self._curves_loading = QLabel("Loading the plots…")
        self._curves_loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._curves_layout.addWidget(self._curves_loading)
        self.run_list = RunList(session)
        training = QSplitter(Qt.Orientation.Vertical)
        training.addWidget(self.curves_holder)
        training.addWidget(self.run_list)
        from studio.gui.widgets.generate_box import GenerateBox

        self.generate_box = GenerateBox(session)  # under the run list, for a selected next-word run
        training.addWidget(self.generate_box)
        training.setSizes([560, 200, 90])
        self.training_splitter = training
        # the pages; their own tab bar is hidden: at 1024 px it scrolled, so the navigation (gui/app/navigation.py)
        # lists every page in groups, one click each, wrapping instead of scrolling
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        self.tabs.tabBar().setVisible(False)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(training, "Training")
        self.tabs.setTabToolTip(0, "Live training curves and the run list")
        self.navigation = Navigation()
        self.navigation.add_page(0, "training", "Training", GROUPS[0], self.tabs.tabToolTip(0))
        # the extra tabs are built on first view (a placeholder until then): the window shows without importing
        # their modules or reading a dataset; tab(id or title) builds one on demand
        self._tab_specs: dict[str, TabSpec] = {spec.title: spec for spec in EXTRA_TABS}
        for spec in EXTRA_TABS:
            index = self.tabs.addTab(TabPlaceholder(spec.title), spec.title)
            self.tabs.setTabToolTip(index, f"The {spec.title} tab")
        for group, specs in grouped(EXTRA_TABS):
            for spec in specs:
                index = EXTRA_TABS.index(spec) + 1
                self.navigation.add_page(index, spec.id, spec.title, group, self.tabs.tabToolTip(index))
        self.navigation.set_current(0)
        self.navigation.page_chosen.connect(self.tabs.setCurrentIndex)
        self.tabs.currentChanged.connect(self.navigation.set_current)
        self.tabs.currentChanged.connect(self._build_current_tab)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.settings)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([340, 940])
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(4, 2, 4, 0)
        column.setSpacing(2)
        self.nav_row = QHBoxLayout()
        self.nav_row.addWidget(self.navigation, 1)
        column.addLayout(self.nav_row)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self.presentation = False
        self._normal_state: Qt.WindowState | None = None
        self._make_actions()
        self._make_presentation_corner()
        self.tabs.currentChanged.connect(lambda _i: self._fit_settings_panel())
        self.status = StatusBar(self)
        self.setStatusBar(self.status)
        self.prefs.restore_window(self, self._splitters())
        self.apply_theme(self.prefs.theme, save=False, others=False)
        wheel_guard.guard_tree(self)  # the wheel scrolls panels, never edits an unfocused field (issue 22)
        session.config_changed.connect(lambda: self.prefs.save_choices(self.session.config))
        session.state_changed.connect(self._on_state)
        session.status_text.connect(self.show_message)
        session.notice.connect(self.show_message)
        session.error.connect(self.show_error)
        session.metrics.connect(self._on_metrics)
        session.progress.connect(self._on_progress)
        session.run_started.connect(self._on_started)
        session.run_ended.connect(self._on_ended)
        session.selection_changed.connect(self._show_selection)
        self.run_list.names_changed.connect(lambda names: self._curves and self._curves.set_labels(names))
        self.run_list.tree.files_dropped.connect(self.files_dropped_on_run)
        self._on_state("idle")
        session.announce_store()  # a damaged run store rebuilt as the session opened it
        self.probe: BackendProbe | None = None
        if probe_backend:
            self.probe = BackendProbe(self)
            self.probe.ready.connect(self._backend_ready)
            self.probe.failed.connect(self._backend_failed)
            # started once the window is on screen: the probe imports torch, which would compete for the CPU
            self._probe_pending = True

    # --- building --------------------------------------------------------------------------
    @property
    def curves(self) -> CurvesView:
        """The Training tab's curves, built on first use (just after the window shows: importing pyqtgraph is
        the largest part of start-up, so the window does not wait for it)."""
        if self._curves is None:
            from studio.gui.plots.curves import CurvesView

            curves = CurvesView()
            curves.setObjectName("curves")
            curves.load_failed.connect(lambda message: self.show_error("Curves", message))
            self._curves_loading.deleteLater()
            self._curves_layout.addWidget(curves)
            self._curves = curves
            wheel_guard.guard_tree(curves)
            curves.set_labels(dict(self.run_list.names))
            self.run_list.set_colours(curves.colours())
            if self.presentation:
                curves.set_presentation(True)
        return self._curves

    def _build_curves(self) -> None:
        """The timer's side of ``curves`` (the window may have been closed and deleted since it was shown)."""
        if shiboken6.isValid(self) and shiboken6.isValid(self.curves_holder):
            _ = self.curves

    def tab(self, key: str) -> QWidget:
        """The tab whose id (``gui/tabs.EXTRA_TABS``) or title is ``key``, built now if it has not been shown yet
        (KeyError for an unknown one)."""
        title = find(key, list(self._tab_specs.values())).title if key != "Training" else key
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == title:
                return self._built_tab(i)
        raise KeyError(title)

    def _built_tab(self, index: int) -> QWidget:
        widget = self.tabs.widget(index)
        if widget is None:
            raise IndexError(f"no tab at index {index}")
        if not isinstance(widget, TabPlaceholder):
            return widget
        title, tip = self.tabs.tabText(index), self.tabs.tabToolTip(index)
        real = self._make_tab(self._tab_specs[title])
        wheel_guard.guard_tree(real)
        current = self.tabs.currentIndex()
        self.tabs.blockSignals(True)  # the swap is not a change of tab
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, real, title)
        self.tabs.setTabToolTip(index, tip)
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(False)
        widget.deleteLater()
        set_presentation = getattr(real, "set_presentation", None) if self.presentation else None
        if callable(set_presentation):
            set_presentation(True)
        return real

    def _build_current_tab(self, index: int) -> None:
        if isinstance(self.tabs.widget(index), TabPlaceholder):
            self._built_tab(index)
            self._fit_settings_panel()

    def _make_tab(self, spec: TabSpec) -> QWidget:
        try:
            return spec.load()(self.session, self)
        except Exception as err:  # noqa: BLE001 - a broken tab must not take the window down
            label = QLabel(f"This tab could not be loaded: {err}")
            label.setWordWrap(True)
            return label

    def _make_actions(self) -> None:
        """The menus and the Run toolbar from the actions table (gui/app/actions.py), plus the two lists the table
        does not hold: the theme choices and the recent files."""
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(toolbar)
        self.menus = {key: self.menuBar().addMenu(title) for key, title in MENUS}
        self.actions_by_id: dict[str, QAction] = build_actions(self, toolbar, self.menus)
        for action_id, action in self.actions_by_id.items():
            setattr(self, f"{action_id}_action", action)  # self.train_action, self.stop_action, …
        self.recent_menu = QMenu("Open &recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.menus["file"].insertMenu(self.open_store_action, self.recent_menu)
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        self.menus["theme"] = self.menus["view"].addMenu("&Theme")
        for name, label in THEME_LABELS.items():
            action = QAction(label, self, checkable=True)
            action.setToolTip(f"{label} colours" if name != "system" else "Light or dark, as the desktop is")
            action.triggered.connect(lambda _checked=False, n=name: self.apply_theme(n))
            self.theme_group.addAction(action)
            self.menus["theme"].addAction(action)
            self.theme_actions[name] = action
        for menu in (*self.menus.values(), self.recent_menu):
            menu.setToolTipsVisible(True)

    def _make_presentation_corner(self) -> None:
        """Train, Stop and a way out of presentation mode, right of the navigation (shown only there)."""
        corner = QWidget()
        row = QHBoxLayout(corner)
        row.setContentsMargins(0, 0, 4, 0)
        for action in (self.train_action, self.stop_action):
            button = QToolButton()
            button.setDefaultAction(action)
            row.addWidget(button)
        leave = QToolButton()
        leave.setText("Exit presentation (F11)")
        leave.setToolTip("Back to the normal window with its settings, menus and run list")
        leave.clicked.connect(lambda: self.toggle_presentation(False))
        row.addWidget(leave)
        corner.setVisible(False)
        self.presentation_corner = corner
        self.nav_row.addWidget(corner, 0, Qt.AlignmentFlag.AlignTop)

    def _fit_settings_panel(self) -> None:
        """The training settings show beside the tabs that use them (not in presentation mode, nor beside a tab
        with settings of its own, such as the Teaching lab: its plots get the width)."""
        current = self.tabs.currentWidget()
        self.settings.setVisible(not self.presentation and getattr(current, "uses_settings_panel", True))

    # --- reactions -------------------------------------------------------------------------
    # One place per message: transient information goes to the status bar; a failure that needs action goes
    # to a dialog only (not also the status bar), and the next success closes a failure's dialog still open.
    def show_message(self, text: str, details: str = "") -> None:
        """Information in the status bar (capitalised); ``details`` (e.g. the skipped files) behind Details…."""
        self.status.show_message(text, details)

    def show_error(self, title: str, message: str) -> None:
        """A non-blocking dialog with the message (the window stays usable); the only place it is shown."""
        self.status.show_error(title, message)

    def clear_errors(self) -> None:
        """A success makes earlier failures stale: close their dialogs."""
        self.status.clear_errors()

    @property
    def last_error(self) -> tuple[str, str] | None:
        """The last failure shown (title, message), None once a success cleared it (tests read it)."""
        return self.status.last_error

    def _backend_ready(self, info: dict) -> None:
        self.settings.hardware.set_backend(info)
        gpus = len(info.get("gpus", []))
        self.status.set_backend(f"Back end ready: PyTorch {info.get('torch')}, {gpus} GPU{'s' if gpus != 1 else ''}")
        if self.status.message.text() == "Ready":
            self.show_message("The training back end is ready")
        if os.environ.get("STUDIO_STARTUP_REPORT"):
            print(f"studio: back end ready: {self.status.backend.text()}", flush=True)

    def _backend_failed(self, message: str) -> None:
        self.status.set_backend("Back end: not available")
        self.show_error("Training back end", message)

    def _on_state(self, state: str) -> None:
        watching = self.session.why_read_only()  # a watched store takes no runs: say why on Train itself
        self.train_action.setEnabled(state == "idle" and not watching)
        self.queue_action.setEnabled(not watching)
        for action in (self.train_action, self.queue_action):
            if action.property("usual_tip") is None:
                action.setProperty("usual_tip", action.toolTip())
            action.setToolTip(watching or action.property("usual_tip"))
        self.stop_action.setEnabled(state != "idle")
        self.pause_action.setEnabled(state != "idle")
        self.pause_action.setText("Resume" if state == JobState.PAUSED else "Pause")
        self.settings.setEnabled(state == "idle")
        if state == "idle":
            self._last_progress = None
            self.status.set_progress(None)
            self.status.set_eta("")
        elif state == JobState.PAUSED:  # the job restarts its rate on resume: paused time is not training time
            paused = self._last_progress
            self.status.set_eta(run_progress(paused, paused=True) if paused else "Paused")

    def train(self) -> str | None:
        """Start a run, after asking when model and data do not fit together (the warning the panel shows)."""
        warnings = self.settings.check_fit()
        if warnings and not self.confirm_warnings(warnings):
            self.show_message("Not started: change the settings the warning names, or train anyway")
            return None
        return self.session.train()

    def stop_run(self) -> None:
        """Stop the runs (checkpointing); the status bar says how to continue one stopped by mistake."""
        if not self.session.jobs:
            return
        self.session.stop()
        run_id = next(iter(self.session.jobs))
        # a run stopped by mistake is one step from continuing: Resume in the run list when the session has it
        # (issue 12's Session.resume_run), else the CLI's --resume
        how = ("Resume it from the run list to continue." if callable(getattr(self.session, "resume_run", None))
               else f"`studio train --resume {run_id}` continues it.")
        self.show_message(f"Stopping: saving a checkpoint… {how}")

    def enqueue(self) -> None:
        """Queue a run with these settings (Queue tab)."""
        self.session.enqueue()

    def toggle_pause(self) -> None:
        if self.session.state == JobState.PAUSED:
            self.session.resume()
        elif self.session.state == JobState.RUNNING:
            self.session.pause()

    def _on_started(self, run_id: str) -> None:
        self.status.set_progress(0)

    def _on_ended(self, run_id: str, status: str, message: str) -> None:
        acc = self.session.run_summary(run_id).get("test_acc")
        acc_txt = f", test accuracy {acc:.4f}" if isinstance(acc, float) and acc == acc else ""
        if status != JobState.FAILED:
            self.show_message(f"Run {run_id} {status}{acc_txt}")
        if status == JobState.FINISHED:
            self.clear_errors()

    def _on_metrics(self, run_id: str, rows: list) -> None:
        self.curves.add_rows(run_id, rows)

    def _on_progress(self, run_id: str, p: dict) -> None:
        """Progress bar and ``Epoch a/b · step c/d · <ETA>``, the ETA being the training job's own
        (``engine/training/launcher.Job.eta_s``, in the words every job uses)."""
        if p.get("total_steps"):
            self.status.set_progress(p.get("step", 0), p["total_steps"])
        self._last_progress = p
        self.status.set_eta(run_progress(p, paused=self.session.state == JobState.PAUSED))

    def _show_selection(self, run_ids: list[str]) -> None:
        """Overlay the selected runs' curves (from the run store; live rows keep arriving), named as in the run
        list and coloured as its swatches."""
        names = {r: self.run_list.names.get(r, r) for r in run_ids}
        self.curves.load_runs(self.session.store, run_ids, names)  # read and drawn off the GUI thread
        self.run_list.set_colours(self.curves.colours())

    # --- files -----------------------------------------------------------------------------
    def import_dialog(self) -> None:
        path = dialogs.dataset_file(self)
        if path:
            self.import_path(path)

    def import_folder_dialog(self) -> None:
        path = dialogs.image_folder(self)
        if path:
            self.import_path(path)

    def import_path(self, path: str) -> None:
        try:
            from studio.gui.widgets.data_import import ImportController
        except ImportError:
            self.show_error("Import", "Importing datasets is not available in this version.")
            return
        if not hasattr(self, "_importer"):
            self._importer = ImportController(self.session, self)
            self._importer.imported.connect(lambda _report: self.clear_errors())
        self._importer.import_path(path)

    def open_path(self, path: str) -> str:
        """Open what ``path`` is (``core/open_target.classify`` decides): a run directory (load its config, select
        the run), a run config ``.toml`` (load it), a run store's folder (watch it, read-only), else a dataset to
        import. Returns the kind: ``"run"``, ``"config"``, ``"store"``, ``"import"`` or ``"missing"`` (also when
        a config could not be loaded)."""
        target = open_target.classify(path)
        if target.kind == open_target.MISSING:
            self.show_error("Open", f"{target.given} does not exist. Check the path, or drop the file on the window.")
            return open_target.MISSING
        if target.remembered:
            self.prefs.add_recent(str(target.given))
        if target.kind == open_target.STORE:
            self._switch_store(str(target.target))  # a run store (`studio /shared/studio`): watch it
        elif target.kind == open_target.IMPORT:
            self.import_path(str(target.target))
        elif not self._load_config(target):
            return open_target.MISSING
        return target.kind

    def open_paths(self, paths: list[str]) -> None:
        """Paths handed over by a second launch: bring the window forward and open each."""
        if self.isMinimized():
            self.showNormal()
        self.raise_()
        self.activateWindow()
        for path in paths:
            self.open_path(path)

    def _load_config(self, target: open_target.OpenTarget) -> bool:
        """Load the config of a run or config-file target into the forms; a run of this store is selected."""
        path = target.config_file
        assert path is not None
        try:
            config = open_target.read_config(path)
        except StudioError as err:
            self.show_error("Cannot load the config", f"{path}: {err}")
            return False
        self.session.set_config(config)
        self.settings.reload()
        if target.kind == open_target.CONFIG:
            self.show_message(f"Loaded the config {path.name}; press Train to run it")
            return True
        run = self.session.find_run(str(target.target))
        if run is None:
            self.show_message(f"Loaded the config of {target.target.name} (a run from another run store)")
            return True
        self.session.set_selection([run.id])
        self.show_message(f"Opened run {run.id} ({run.status}); its config is loaded")
        return True

    def open_dialog(self) -> None:
        path = dialogs.run_or_config(self, str(self.session.store.runs_dir))
        if path:
            self.open_path(path)

    def open_store_dialog(self) -> None:
        path = dialogs.run_store_folder(self)
        if path:
            self._switch_store(path)

    def watch_own_store(self) -> None:
        """Back to the user's own run store after watching another."""
        self._switch_store(None)

    def _switch_store(self, home: str | None) -> None:
        """Watch another run store read-only (None: back to the user's own); the title says which."""
        if self.session.open_store(home):
            self.own_store_action.setEnabled(home is not None)
            self.setWindowTitle(f"Studio — watching {home} (read-only)" if home else "Studio")
            self._on_state(self.session.state)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.prefs.recent_files()
        for path in files:
            action = self.recent_menu.addAction(Path(path).name or path)
            action.setToolTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not files:
            self.recent_menu.addAction("No recent files").setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear the list", self.prefs.clear_recent)

    def export_dialog(self) -> None:
        runs = self.session.selected_runs()
        if not runs:
            self.show_error("Export", "Select one or more runs in the run list first.")
            return
        path = dialogs.metrics_csv(self)
        if path:
            self.export_metrics(runs, path)

    def export_metrics(self, run_ids: list[str], path: str) -> int:
        try:
            rows = self.session.export_metrics(run_ids, path)
        except (OSError, StudioError) as err:
            self.show_error("Export", f"Could not write {path}: {err}")
            return 0
        self.show_message(f"Exported {rows} metric values of {len(run_ids)} run(s) to {path}")
        return rows

    def dragEnterEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def cluster_dialog(self) -> QDialog:
        """Run on a cluster…: the current settings as a Slurm + torchrun job (gui/app/cluster_dialog.py)."""
        from studio.gui.app.cluster_dialog import ClusterDialog

        dialog = ClusterDialog(self.session, self)
        dialog.setModal(False)
        dialog.show()
        return dialog

    def files_dropped_on_run(self, run_id: str, paths: list[str]) -> bool:
        """Files dropped on a run's row are classified with that run (Evaluation › Predict shows them); dropped
        between rows they open as anywhere else in the window."""
        if not run_id:
            for path in paths:
                self.open_path(path)
            return False
        # the Evaluation tab (were it the label of a tab that failed to load, predict_on raises AttributeError)
        evaluation = cast("EvaluationTab", self.tab("Evaluation"))
        self.tabs.setCurrentWidget(evaluation)
        return evaluation.predict_on(run_id, paths)

    def dropEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
        event.acceptProposedAction()

    # --- view ------------------------------------------------------------------------------
    def apply_theme(self, name: str, save: bool = True, others: bool = True) -> str:
        """``"system"``, ``"light"`` or ``"dark"``: restyles the window and every plot; remembered. ``others=False``
        (the window being built): leaves the other top-level windows alone — walking the plots of windows that are
        being torn down crashed in Qt (a segfault in theme.apply seen in CI)."""
        applied = theme.apply(name, restyle_windows=others)  # to the running QApplication
        theme.restyle_plots(self, applied)
        for i in range(self.tabs.count()):  # tabs that style some plots their own way (the Teaching lab)
            hook = getattr(self.tabs.widget(i), "theme_changed", None)
            if hook is not None:
                hook()
        if self._curves is not None:
            self._curves.restyle_key()
            self.run_list.set_colours(self._curves.colours())
        self.theme_actions[name].setChecked(True)
        self.theme_name = name
        if save:
            self.prefs.theme = name
        return applied

    def follow_system_theme(self, *_args: Any) -> None:
        """The desktop switched light/dark: follow it when the theme is "Follow the system"."""
        if self.theme_name == "system":
            self.apply_theme("system", save=False)

    def toggle_presentation(self, on: bool | None = None) -> None:
        """Full screen with large fonts and thick lines (F11); every tab that has ``set_presentation`` follows."""
        on = (not self.presentation) if on is None else bool(on)
        self.presentation = on
        self.presentation_action.setChecked(on)
        if on:
            self._normal_state = self.windowState()
            self.showFullScreen()
        else:
            self.showNormal()
            if self._normal_state is not None and self._normal_state & Qt.WindowState.WindowMaximized:
                self.showMaximized()
        # the class sees the plots: settings, run list, menus and toolbar go; F11 or the corner button brings
        # them back, and Train/Stop stay one click away beside the navigation
        self.menuBar().setVisible(not on)
        for bar in self.findChildren(QToolBar):
            bar.setVisible(not on)
        self.run_list.setVisible(not on)
        self.presentation_corner.setVisible(on)
        self._fit_settings_panel()
        for widget in self._presentation_widgets():
            widget.set_presentation(on)

    def _presentation_widgets(self) -> list[Any]:
        widgets = ([self._curves] if self._curves is not None else []) + [self.tabs.widget(i)
                                                                           for i in range(self.tabs.count())]
        seen, out = set(), []
        for w in widgets:
            if callable(getattr(w, "set_presentation", None)) and id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    # --- help ------------------------------------------------------------------------------
    def open_documentation(self) -> bool:
        path = documentation_path()
        if not path.exists():
            self.show_error("Documentation", f"The documentation ({path.name}) is not installed with this copy.")
            return False
        from studio.gui.app.help_window import show_help

        # a window of Studio's own: works where no program opens .md files (issue 22)
        self.help_window = show_help(self, path, getattr(self, "help_window", None))
        return True

    def about_text(self) -> str:
        from PySide6 import __version__ as pyside_version
        from PySide6.QtCore import qVersion

        info = self.settings.hardware.info
        torch_v = info.get("torch") or "still loading (the back end starts in the background)"
        cuda = info.get("cuda") or ("none (a CPU build)" if info else "–")
        gpus = ", ".join(info.get("gpus", [])) or "none"
        return (f"Studio {__version__}\n\nPyTorch {torch_v}\nCUDA {cuda}\nGPUs: {gpus}\n"
                f"Qt {qVersion()} (PySide6 {pyside_version})\nPython {sys.version.split()[0]}")

    def about(self) -> None:
        self.about_box = dialogs.about_box(self, self.about_text(), app_icon())

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._curves is None:  # the plots once the window has painted (CURVES_AFTER_MS)
            QTimer.singleShot(CURVES_AFTER_MS, self, self._build_curves)
        if getattr(self, "_probe_pending", False):
            self._probe_pending = False
            # the warm back end: a server imports torch now, so the first job forks instead of importing it
            QTimer.singleShot(0, self.session.warm_up)
            if self.probe is not None:  # always: the probe is pending only when there is one
                QTimer.singleShot(50, self.probe.start_probe)

    # --- closing ---------------------------------------------------------------------------
    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self.session.jobs and not self.confirm_close():
            event.ignore()
            return
        self.show_message("Stopping runs…")
        if self.presentation:
            self.toggle_presentation(False)
        self.prefs.save_window(self, self._splitters())
        self.prefs.save_choices(self.session.config)
        self.prefs.sync()
        self.session.shutdown()
        self.generate_box.shutdown()
        if self.probe is not None and self.probe.state() != self.probe.ProcessState.NotRunning:
            self.probe.kill()
            self.probe.waitForFinished(1000)
        event.accept()


    def _splitters(self) -> dict[str, QSplitter]:
        return {"main": self.splitter, "training": self.training_splitter}
