"""The main window: settings panels on the left, curves and the run list in pages, Train/Pause/Stop.

It only composes: it builds the parts and wires them. What the menus, toolbar, drops and hand-overs do is
commands.py (on the parts: shell.py); the pages built on first view are pages.py, the curves built after the window
shows curves_pane.py, how runs are followed run_state.py, presentation mode presentation.py, the themes
theme_menu.py, the recent files recent_menu.py, the status bar status_bar.py, the dialogs dialogs.py, remembered
geometry and choices settings.py; ``run_gui`` (the application and the single-instance hand-off) is start.py.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QSplitter, QToolBar, QVBoxLayout, QWidget

from studio.gui.app import commands, dialogs
from studio.gui.app.actions import MENUS, build_actions
from studio.gui.app.commands import app_icon
from studio.gui.app.curves_pane import CURVES_AFTER_MS, CurvesPane
from studio.gui.app.pages import Pages
from studio.gui.app.presentation import Presentation
from studio.gui.app.recent_menu import RecentMenu
from studio.gui.app.run_state import RunState
from studio.gui.app.settings import SettingsStore
from studio.gui.app.shell import Shell
from studio.gui.app.status_bar import StatusBar
from studio.gui.app.theme_menu import ThemeMenu
from studio.gui.panels.hardware import BackendProbe
from studio.gui.panels.run_list import RunList
from studio.gui.panels.settings_panels import SettingsPanels
from studio.gui.session import theme
from studio.gui.session.session import Session
from studio.gui.widgets import wheel_guard
from studio.gui.widgets.generate_box import GenerateBox

CONVERT_AFTER_MS = 1000  # an older store's curves are converted (in a thread) this long after the window shows


def default_size() -> QSize:
    """1280×800, or the screen's free area when it is smaller (a 1024×768 projector): never off screen."""
    size = QSize(1280, 800)
    screen = QGuiApplication.primaryScreen()
    return size.boundedTo(screen.availableGeometry().size()) if screen is not None else size


class MainWindow(QMainWindow):
    # one QAction per row of the actions table (gui/app/actions.py), set as ``<id>_action``
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
    record_curves_action: QAction
    save_lesson_action: QAction
    class_board_action: QAction
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

        # the parts: settings on the left; the pages (curves, run list, generation first) on the right
        self.settings = SettingsPanels(session)
        self.run_list = RunList(session)
        self.curves_pane = CurvesPane(on_built=self._curves_built)
        self.generate_box = GenerateBox(session)  # under the run list, for a selected next-word run
        self.training_splitter = QSplitter(Qt.Orientation.Vertical)
        for part in (self.curves_pane, self.run_list, self.generate_box):
            self.training_splitter.addWidget(part)
        self.training_splitter.setSizes([560, 200, 90])
        self.pages = Pages(session, self.training_splitter, self)
        self.tabs, self.navigation = self.pages.tabs, self.pages.navigation
        self.pages.built.connect(self._follow_config)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.settings)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([340, 940])
        self.splitters = {"main": self.splitter, "training": self.training_splitter}  # remembered (settings.py)
        self.status = StatusBar(self)
        self.setStatusBar(self.status)

        # the menus and the Run toolbar from the actions table, the recent files, the themes, presentation mode
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run_toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(toolbar)
        self.menus = {key: self.menuBar().addMenu(title) for key, title in MENUS}
        self.actions_by_id = build_actions(self, toolbar, self.menus, lambda: self.shell)
        for action_id, action in self.actions_by_id.items():
            setattr(self, f"{action_id}_action", action)  # self.train_action, self.stop_action, …
        self.recent_menu = RecentMenu(self.prefs, lambda path: commands.open_path(self.shell, path), self)
        self.menus["file"].insertMenu(self.open_store_action, self.recent_menu)
        self.menus["theme"] = self.menus["view"].addMenu("&Theme")
        for menu in self.menus.values():
            menu.setToolTipsVisible(True)
        self.themes = ThemeMenu(self, self.menus["theme"], self.prefs, self.pages, self.curves_pane, self.run_list)
        self.presentation = Presentation(self, self.pages, self.settings, self.run_list, self.curves_pane,
                                         self.presentation_action, (self.train_action, self.stop_action))
        self.run_state = RunState(session, self.actions_by_id, self.settings, self.status, self.curves_pane,
                                  self.run_list, self)
        self.shell = Shell(self, session, self.prefs, self.status, self.settings, self.pages, self.run_list,
                           self.curves_pane, self.actions_by_id, self.presentation, self.themes, self.run_state,
                           confirm_warnings=lambda warnings: dialogs.train_anyway(self, warnings),
                           confirm_close=lambda: dialogs.stop_and_quit(self))

        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(4, 2, 4, 0)
        column.setSpacing(2)
        nav_row = QHBoxLayout()
        nav_row.addWidget(self.navigation, 1)
        nav_row.addWidget(self.presentation.corner, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(nav_row)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.prefs.restore_window(self, self.splitters)
        self.themes.apply(self.prefs.theme, save=False, others=False)
        wheel_guard.guard_tree(self)  # the wheel scrolls panels, never edits an unfocused field (issue 22)

        # the wiring
        session.config_changed.connect(lambda: self.prefs.save_choices(self.session.config))
        session.status_text.connect(self.status.show_message)
        session.notice.connect(self.status.show_message)
        session.error.connect(self.status.show_error)
        self.run_list.names_changed.connect(self.curves_pane.set_labels)
        self.run_list.tree.files_dropped.connect(
            lambda run_id, paths: commands.files_dropped_on_run(self.shell, run_id, paths))
        self.run_state.on_state("idle")
        session.announce_store()  # a damaged run store rebuilt as the session opened it
        self.probe: BackendProbe | None = None
        self._probe_pending = False
        if probe_backend:
            self.probe = BackendProbe(self)
            self.probe.ready.connect(lambda info: commands.backend_ready(self.shell, info))
            self.probe.failed.connect(lambda message: commands.backend_failed(self.shell, message))
            # started once the window is on screen: the probe imports torch, which would compete for the CPU
            self._probe_pending = True

    def _follow_config(self, page: Any) -> None:
        """A page that puts values in the session's config (``config_set``: the learning-rate finder) has the
        settings form show them."""
        signal = getattr(page, "config_set", None)
        if signal is not None:
            signal.connect(self.settings.reload)

    def _band_chosen(self, curves: Any, kind: str) -> None:
        """The Seeds setting changed: remembered, and the run list's swatches follow (a group shares a colour)."""
        self.prefs.seed_band = kind
        self.run_list.set_colours(curves.colours())

    def _curves_built(self, curves: Any) -> None:
        """The curves were just made: the run list's names and colours, the window's error dialog, presentation,
        the metrics plotted."""
        curves.load_failed.connect(lambda message: self.status.show_error("Curves", message))
        curves.set_metric_choices(self.prefs.metric_choices)  # which metrics are plotted, as last chosen
        curves.metrics_chosen.connect(lambda choices: setattr(self.prefs, "metric_choices", choices))
        curves.set_band(self.prefs.seed_band)  # how a seed group is drawn, as last chosen
        curves.band_chosen.connect(lambda kind: self._band_chosen(curves, kind))
        curves.set_labels(dict(self.run_list.names))
        self.run_list.set_colours(curves.colours())
        if self.presentation.on:
            curves.set_presentation(True)

    # --- Qt's events ---------------------------------------------------------------------------------------------
    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self.curves_pane.view is None:  # the plots once the window has painted (CURVES_AFTER_MS)
            QTimer.singleShot(CURVES_AFTER_MS, self.curves_pane, self.curves_pane.build_later)
        if self._probe_pending:
            self._probe_pending = False
            # the warm back end: a server imports torch now, so the first job forks instead of importing it
            QTimer.singleShot(0, self.session.warm_up)
            # runs from an older Studio: their curves converted in a thread, once the warm back end has begun
            QTimer.singleShot(CONVERT_AFTER_MS, self.session.convert_old_curves)
            if self.probe is not None:  # always: the probe is pending only when there is one
                QTimer.singleShot(50, self.probe.start_probe)

    def dragEnterEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        for url in event.mimeData().urls():
            if url.isLocalFile():
                commands.open_path(self.shell, url.toLocalFile())
        event.acceptProposedAction()

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self.session.jobs and not self.shell.confirm_close():
            event.ignore()
            return
        self.status.show_message("Stopping runs…")
        if self.presentation.on:
            self.presentation.toggle(False)
        self.prefs.save_window(self, self.splitters)
        self.prefs.save_choices(self.session.config)
        self.prefs.sync()
        self.session.shutdown()
        self.generate_box.shutdown()
        if self.probe is not None and self.probe.state() != self.probe.ProcessState.NotRunning:
            self.probe.kill()
            self.probe.waitForFinished(1000)
        event.accept()
