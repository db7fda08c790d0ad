"""The main window's actions as data: one :class:`ActionSpec` per action in :data:`ACTIONS`.

``MainWindow`` builds its QActions, menus and toolbar from this table (:func:`build_actions`); an action calls
its command (a function of commands.py) with the window's parts (``shell.Shell``) when triggered. Adding an action
is one row here plus the command. The theme choices (theme_menu.py) and the recent files (recent_menu.py) are
lists, not single actions.

Keys: Stop is ``Ctrl+.``, never Esc (Esc belongs to dialogs and pop-ups, and a stray key must never end a run:
issue 13); Stop and Pause are window shortcuts, so keys meant for a dialog never reach the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from studio.gui.app import commands

STOP_SHORTCUT: Final = "Ctrl+."

# the menu bar, in order: (key, title); an action names its menu by key
MENUS: Final = (("file", "&File"), ("run", "&Run"), ("view", "&View"), ("help", "&Help"))


@dataclass(frozen=True)
class ActionSpec:
    """One window action. ``shortcut`` is a key chord ("Ctrl+E") or the name of a platform standard key
    (``QKeySequence.StandardKey``: "Open", "Quit", "HelpContents")."""

    id: str  # the window keeps the QAction as ``<id>_action``
    text: str
    command: Callable[[Any], object]  # a function of commands.py, called with the window's Shell
    tip: str
    menu: str  # a key of MENUS
    shortcut: str = ""
    toolbar: bool = False
    checkable: bool = False
    window_shortcut: bool = False  # only while the window itself has focus (not in its dialogs)
    enabled: bool = True
    separator_before: bool = False

    @property
    def attribute(self) -> str:
        return f"{self.id}_action"

    def key_sequence(self) -> QKeySequence:
        standard = getattr(QKeySequence.StandardKey, self.shortcut, None) if self.shortcut else None
        return QKeySequence(standard) if standard is not None else QKeySequence(self.shortcut)


ACTIONS: Final[tuple[ActionSpec, ...]] = (
    ActionSpec("train", "Train", commands.train, "Start training", "run", "Ctrl+Return", toolbar=True),
    ActionSpec("pause", "Pause", commands.toggle_pause, "Pause or resume the run", "run", "Space", toolbar=True,
               window_shortcut=True),
    ActionSpec("stop", "Stop", commands.stop_run, "Stop the run and save a checkpoint (the run can be resumed from it)",
               "run", STOP_SHORTCUT, toolbar=True, window_shortcut=True),
    ActionSpec("queue", "Add to queue", commands.enqueue, "Queue a run with these settings: it starts when the devices "
               "are free and keeps going after Studio closes (Queue tab)", "run", "Ctrl+Shift+Return",
               toolbar=True),
    ActionSpec("cluster", "Run on a cluster…", commands.cluster_dialog, "Write these settings as a Slurm job that runs "
               "torchrun on several machines (config.toml and run.sbatch)", "run", separator_before=True),
    ActionSpec("import", "Import data…", commands.import_dialog,
               "Import a dataset: a folder of images, a zip, CSV, NPZ or IDX file", "file", "Ctrl+I"),
    ActionSpec("import_folder", "Import folder…", commands.import_folder_dialog,
               "Import a folder of images (one subfolder per class, or train/ and test/ folders of that layout), "
               "or of IDX files", "file", "Ctrl+Shift+I"),
    ActionSpec("open", "Open run…", commands.open_dialog,
               "Load a run's config (its config.toml) or any run config file", "file", "Open"),
    ActionSpec("open_store", "Open run store…", commands.open_store_dialog,
               "Watch a run store that other machines write (a shared folder a cluster job records into): "
               "read-only, its runs follow live", "file"),
    ActionSpec("own_store", "Back to my run store", commands.watch_own_store, "Show your own runs again", "file",
               enabled=False),
    ActionSpec("export", "Export metrics…", commands.export_dialog, "Save the selected runs' metrics as a CSV file",
               "file", "Ctrl+E"),
    ActionSpec("record_curves", "Record the curves…", commands.record_curves, "For slides: the selected runs' "
               "curves growing step by step as an MP4 or GIF, or a PNG or SVG still", "file"),
    ActionSpec("save_lesson", "Save as lesson…", commands.save_lesson, "For a class: the demos opened in the "
               "Teaching lab with their settings, the training settings and the selected runs as the steps of one "
               ".studio-lesson file that students open read-only", "file"),
    ActionSpec("class_board", "Class board…", commands.class_board, "For a class: the runs the students trained "
               "for a lesson in a shared run store, ranked live by the lesson's metric, full screen", "file"),
    ActionSpec("quit", "Quit", commands.quit_window, "Quit Studio", "file", "Quit", separator_before=True),
    ActionSpec("presentation", "Presentation mode", commands.toggle_presentation,
               "Full screen with large fonts and thick lines, for a projector", "view", "F11", checkable=True),
    ActionSpec("docs", "Documentation", commands.open_documentation, "Open Studio's documentation", "help",
               "HelpContents"),
    ActionSpec("about", "About Studio", commands.about, "Versions of Studio, PyTorch, CUDA and Qt", "help"),
)


def spec(action_id: str) -> ActionSpec:
    """The row of ``action_id`` (KeyError for an unknown id)."""
    for row in ACTIONS:
        if row.id == action_id:
            return row
    raise KeyError(action_id)


def make_action(window: QMainWindow, row: ActionSpec, shell: Callable[[], Any]) -> QAction:
    """A QAction for ``row``, added to ``window``; triggering it calls ``row.command(shell())`` (the window's
    parts, asked for then: the window composes them after its actions)."""
    action = QAction(row.text, window)
    action.setObjectName(row.attribute)
    keys = row.key_sequence()
    tip = f"{row.tip} ({keys.toString()})" if not keys.isEmpty() else row.tip
    if not keys.isEmpty():
        action.setShortcut(keys)
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut if row.window_shortcut
                                  else Qt.ShortcutContext.ApplicationShortcut)
    action.setToolTip(tip)
    action.setStatusTip(row.tip)
    action.setCheckable(row.checkable)
    action.setEnabled(row.enabled)
    action.triggered.connect(lambda _checked=False, command=row.command: command(shell()))
    window.addAction(action)
    return action


def build_actions(window: QMainWindow, toolbar: QToolBar, menus: dict[str, QMenu], shell: Callable[[], Any],
                  rows: tuple[ActionSpec, ...] | None = None) -> dict[str, QAction]:
    """Make every row's QAction (of ``rows``, by default the table), put it in its menu (and on the toolbar), and
    return them by id."""
    made: dict[str, QAction] = {}
    for row in ACTIONS if rows is None else rows:
        action = make_action(window, row, shell)
        if row.separator_before:
            menus[row.menu].addSeparator()
        menus[row.menu].addAction(action)
        if row.toolbar:
            toolbar.addAction(action)
        made[row.id] = action
    return made
