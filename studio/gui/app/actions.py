"""The main window's actions as data: one :class:`ActionSpec` per action in :data:`ACTIONS`.

``MainWindow`` builds its QActions, menus and toolbar from this table (:func:`build_actions`); an action calls
the window method it names when triggered. Adding an action is one row here plus the method. The theme choices
and the recent-files submenu are built by the window itself (they are lists, not single actions).

Keys: Stop is ``Ctrl+.``, never Esc (Esc belongs to dialogs and pop-ups, and a stray key must never end a run:
issue 13); Stop and Pause are window shortcuts, so keys meant for a dialog never reach the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

STOP_SHORTCUT: Final = "Ctrl+."

# the menu bar, in order: (key, title); an action names its menu by key
MENUS: Final = (("file", "&File"), ("run", "&Run"), ("view", "&View"), ("help", "&Help"))


@dataclass(frozen=True)
class ActionSpec:
    """One window action. ``shortcut`` is a key chord ("Ctrl+E") or the name of a platform standard key
    (``QKeySequence.StandardKey``: "Open", "Quit", "HelpContents")."""

    id: str  # the window keeps the QAction as ``<id>_action``
    text: str
    method: str  # the MainWindow method the action calls (with no arguments)
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
    ActionSpec("train", "Train", "train", "Start training", "run", "Ctrl+Return", toolbar=True),
    ActionSpec("pause", "Pause", "toggle_pause", "Pause or resume the run", "run", "Space", toolbar=True,
               window_shortcut=True),
    ActionSpec("stop", "Stop", "stop_run", "Stop the run and save a checkpoint (the run can be resumed from it)",
               "run", STOP_SHORTCUT, toolbar=True, window_shortcut=True),
    ActionSpec("queue", "Add to queue", "enqueue", "Queue a run with these settings: it starts when the devices "
               "are free and keeps going after Studio closes (Queue tab)", "run", "Ctrl+Shift+Return",
               toolbar=True),
    ActionSpec("cluster", "Run on a cluster…", "cluster_dialog", "Write these settings as a Slurm job that runs "
               "torchrun on several machines (config.toml and run.sbatch)", "run", separator_before=True),
    ActionSpec("import", "Import data…", "import_dialog",
               "Import a dataset: a folder of images, a zip, CSV, NPZ or IDX file", "file", "Ctrl+I"),
    ActionSpec("import_folder", "Import folder…", "import_folder_dialog",
               "Import a folder of images (one subfolder per class, or train/ and test/ folders of that layout), "
               "or of IDX files", "file", "Ctrl+Shift+I"),
    ActionSpec("open", "Open run…", "open_dialog", "Load a run's config (its config.toml) or any run config file",
               "file", "Open"),
    ActionSpec("open_store", "Open run store…", "open_store_dialog",
               "Watch a run store that other machines write (a shared folder a cluster job records into): "
               "read-only, its runs follow live", "file"),
    ActionSpec("own_store", "Back to my run store", "watch_own_store", "Show your own runs again", "file",
               enabled=False),
    ActionSpec("export", "Export metrics…", "export_dialog", "Save the selected runs' metrics as a CSV file", "file",
               "Ctrl+E"),
    ActionSpec("quit", "Quit", "close", "Quit Studio", "file", "Quit", separator_before=True),
    ActionSpec("presentation", "Presentation mode", "toggle_presentation",
               "Full screen with large fonts and thick lines, for a projector", "view", "F11", checkable=True),
    ActionSpec("docs", "Documentation", "open_documentation", "Open Studio's documentation", "help",
               "HelpContents"),
    ActionSpec("about", "About Studio", "about", "Versions of Studio, PyTorch, CUDA and Qt", "help"),
)


def spec(action_id: str) -> ActionSpec:
    """The row of ``action_id`` (KeyError for an unknown id)."""
    for row in ACTIONS:
        if row.id == action_id:
            return row
    raise KeyError(action_id)


def make_action(window: QMainWindow, row: ActionSpec) -> QAction:
    """A QAction for ``row``, added to ``window``; triggering it calls ``window.<row.method>()`` (looked up then,
    so a replaced method is the one called)."""
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
    action.triggered.connect(lambda _checked=False, name=row.method: getattr(window, name)())
    window.addAction(action)
    return action


def build_actions(window: QMainWindow, toolbar: QToolBar, menus: dict[str, QMenu],
                  rows: tuple[ActionSpec, ...] = ACTIONS) -> dict[str, QAction]:
    """Make every row's QAction, put it in its menu (and on the toolbar), and return them by id."""
    made: dict[str, QAction] = {}
    for row in rows:
        action = make_action(window, row)
        if row.separator_before:
            menus[row.menu].addSeparator()
        menus[row.menu].addAction(action)
        if row.toolbar:
            toolbar.addAction(action)
        made[row.id] = action
    return made
