"""The window's parts, as the commands (commands.py) see them: the main window composes a :class:`Shell` and every
menu action, drop and hand-over works on it, never on a method of the window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

from studio.gui.app.curves_pane import CurvesPane
from studio.gui.app.pages import Pages
from studio.gui.app.presentation import Presentation
from studio.gui.app.run_state import RunState
from studio.gui.app.settings import SettingsStore
from studio.gui.app.status_bar import StatusBar
from studio.gui.app.theme_menu import ThemeMenu
from studio.gui.panels.run_list import RunList
from studio.gui.panels.settings_panels import SettingsPanels
from studio.gui.session.session import Session


@dataclass(eq=False)
class Shell:
    """``window`` is the parent of the dialogs and carries the title; ``confirm_warnings(warnings)`` is asked
    before training a config whose model and data do not fit, ``confirm_close()`` before closing during a run
    (tests replace both). ``importer``, ``help_window`` and ``about_box`` are made when first needed."""

    window: QMainWindow
    session: Session
    prefs: SettingsStore
    status: StatusBar
    settings: SettingsPanels
    pages: Pages
    run_list: RunList
    curves: CurvesPane
    actions: dict[str, QAction]
    presentation: Presentation
    themes: ThemeMenu
    run_state: RunState
    confirm_warnings: Callable[[list[str]], bool]
    confirm_close: Callable[[], bool]
    importer: Any = None
    log_importer: Any = None  # TensorBoard logs being imported (gui/widgets/log_import.py)
    lesson_panel: Any = None  # the lesson opened (gui/app/lesson_panel.py)
    class_board: Any = None  # File › Class board… (gui/app/class_board.py)
    help_window: Any = None
    about_box: Any = None
