"""The run list: past and current runs from the run store; selecting runs overlays their curves.

Runs are named by what differs between them (``core/runs/names.py``) unless a person renamed them; the
runs shown in the curves carry their curve colour as a swatch (the plots' colour key). Right-click:
Resume (issue 12: continue a stopped, interrupted or finished run from its checkpoint; also a button),
Rename…, Notes…, Delete…. Images (or a folder, or a CSV) dropped on a run's row are classified with that
run (``RunTree.files_dropped``; the Evaluation tab's Predict shows the result). Other features add theirs with
``add_context_action`` and ``add_column``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QMenu,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.runs.names import run_names
from studio.core.vocab import JobState

COLUMNS = ("Run", "Status", "Test acc", "Val acc", "Steps", "Started", "Notes")
RESUMABLE_ROLE = Qt.ItemDataRole.UserRole + 1  # the run can continue from a checkpoint (core/runs/store.py)


class RunTree(QTreeWidget):
    """The list's rows. Files dropped on the row of a run with a checkpoint are for that run (``files_dropped(run_id,
    paths)``: classify them, issue 14's Predict); dropped between rows, ``run_id`` is "" (open or import them)."""

    files_dropped = Signal(str, object)

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(False)

    def run_at(self, pos: Any) -> str:
        """The run under ``pos`` (viewport coordinates) when it has a checkpoint to predict with, else ""."""
        item = self.itemAt(pos)
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None and item.data(0, RESUMABLE_ROLE) else ""

    def dragEnterEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if not event.mimeData().hasUrls():
            event.ignore()
            return
        event.acceptProposedAction()
        run_id = self.run_at(event.position().toPoint())
        # the row under the cursor is the run the files go to (current, not selected: the curves stay)
        # (None: no current item, as Qt allows; PySide6's stub omits None)
        self.setCurrentItem(self.itemAt(event.position().toPoint()) if run_id else None,  # type: ignore[arg-type]
                            0, QItemSelectionModel.SelectionFlag.NoUpdate)

    def dropEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.files_dropped.emit(self.run_at(event.position().toPoint()), paths)


@dataclass
class ContextAction:
    text: str
    slot: Callable[[list[str]], object]  # called with the selected run ids (what it returns is not used)
    enabled: Callable[[list[str]], bool]
    tip: str = ""
    why_disabled: Callable[[list[str]], str] | None = None  # the tooltip while it is disabled


class RunList(QWidget):
    names_changed = Signal(object)  # run_id → name, after every refresh

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.names: dict[str, str] = {}
        self.notes: dict[str, str] = {}
        self.statuses: dict[str, str] = {}  # run id → status in the store, at the last refresh
        self.colours: dict[str, str] = {}
        self.extra_columns: list[tuple[str, Callable[[Any], str]]] = []
        self.context_actions: list[ContextAction] = []
        # Asked before deleting and for a new name / notes; tests replace them.
        self.confirm_delete: Callable[[list[str]], bool] = self._ask_delete
        self.ask_text: Callable[[str, str, str, bool], str | None] = self._ask_text
        self.tree = RunTree()
        self.tree.setObjectName("run_list")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setToolTip("Runs in the run store, named by what differs between them. Select one to see its "
                             "curves; Ctrl/Shift-click to overlay several (the swatch is the run's curve colour). "
                             "Right-click to rename, add notes or delete. Drop images or a CSV on a finished run to "
                             "classify them with it.")
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.itemDoubleClicked.connect(lambda item, col: self.rename_dialog(self._id(item)) if col == 0 else None)
        rename_key = QAction("Rename", self.tree)
        rename_key.setShortcut(QKeySequence(Qt.Key.Key_F2))
        rename_key.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        rename_key.triggered.connect(lambda: self.rename_dialog(self.selected_ids()[0]) if len(self.selected_ids()) == 1
                                     else None)
        self.tree.addAction(rename_key)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("resume_run")
        self.resume_button.setToolTip("Continue the selected stopped, interrupted or finished run from its last "
                                      "checkpoint, in the same run (its curves continue)")
        self.resume_button.clicked.connect(self.resume_selected)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.resume_button)
        layout.addLayout(buttons)
        self.tree.itemSelectionChanged.connect(self._selected)
        session.state_changed.connect(lambda _state: self._update_buttons())
        session.runs_changed.connect(self.refresh)
        session.selection_changed.connect(self._select)
        self.add_context_action("Resume", lambda ids: self.resume_selected(),
                                lambda ids: self.resumable_selection() is not None,
                                "Continue the run from its last checkpoint")
        self.add_context_action("Rename…", lambda ids: self.rename_dialog(ids[0]), lambda ids: len(ids) == 1,
                                "Give the run a name of your own (F2 or double-click)")
        self.add_context_action("Notes…", lambda ids: self.notes_dialog(ids[0]), lambda ids: len(ids) == 1,
                                "Write notes about the run (shown in the Notes column)")
        self.add_context_action("Delete…", self.delete_runs, lambda ids: bool(ids) and not self._training(ids),
                                "Delete the run: its metrics, checkpoints and directory",
                                lambda ids: (f"{self.names.get(self._training(ids)[0], 'the run')} is training; "
                                             "stop it before deleting it"))
        self.refresh()

    # --- extension points ----------------------------------------------------------------------
    def add_context_action(self, text: str, slot: Callable[[list[str]], object],
                           enabled: Callable[[list[str]], bool] | None = None, tip: str = "",
                           why_disabled: Callable[[list[str]], str] | None = None) -> None:
        """Add an entry to the right-click menu; ``slot`` gets the selected run ids; ``why_disabled`` gives the
        tooltip while ``enabled`` says no."""
        self.context_actions.append(ContextAction(text, slot, enabled or (lambda ids: bool(ids)), tip, why_disabled))

    def _training(self, ids: list[str]) -> list[str]:
        """The selected runs being trained, by this window or by another process (its status in the store)."""
        return [r for r in ids if r in self.session.jobs or self.statuses.get(r) in (JobState.RUNNING,
                                                                                     JobState.PAUSED)]

    def add_column(self, title: str, value: Callable[[Any], str]) -> None:
        """Add a column whose text is ``value(run_info)``."""
        self.extra_columns.append((title, value))
        self.tree.setHeaderLabels([*COLUMNS, *(t for t, _ in self.extra_columns)])
        self.refresh()

    def context_menu(self) -> QMenu:
        """The right-click menu for the current selection (built fresh each time)."""
        ids = self.selected_ids()
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        for entry in self.context_actions:
            action = menu.addAction(entry.text)
            enabled = entry.enabled(ids)
            action.setToolTip(entry.why_disabled(ids) if not enabled and entry.why_disabled and ids else entry.tip)
            action.setEnabled(enabled)
            action.triggered.connect(lambda _=False, e=entry, i=ids: e.slot(i))
        return menu

    def _context_menu(self, pos: Any) -> None:
        self.context_menu().exec(self.tree.viewport().mapToGlobal(pos))

    # --- contents ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload the list from the run store, keeping the selection."""
        selected = self.session.selected_runs()
        store = self.session.store
        runs = store.list()
        self.names = run_names(self._params(runs), {r.id: r.name for r in runs})
        self.notes = store.notes()
        self.statuses = {r.id: r.status for r in runs}
        self.tree.blockSignals(True)
        self.tree.clear()
        positions = self.session.queue_positions()
        for run in runs:
            def num(key: str, summary: dict = run.summary) -> str:
                v = summary.get(key)
                return f"{v:.4f}" if isinstance(v, (int, float)) and v == v else ""

            status = run.status if run.status != JobState.QUEUED else "starting"  # created, ranks not yet up
            status = f"queued #{positions[run.id]}" if run.id in positions else status
            notes = self.notes.get(run.id, "")
            item = QTreeWidgetItem([
                self.names.get(run.id, run.name), status, num("test_acc"), num("val_acc"),
                str(run.summary.get("steps", "")), time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created)),
                notes.split("\n", 1)[0], *(value(run) for _, value in self.extra_columns),
            ])
            item.setData(0, Qt.ItemDataRole.UserRole, run.id)
            item.setData(0, RESUMABLE_ROLE, run.resumable)
            item.setToolTip(0, f"{self.names.get(run.id, run.name)}\n{run.id}\n{run.dir}")
            if notes:
                item.setToolTip(len(COLUMNS) - 1, notes)
            if run.message:
                item.setToolTip(1, run.message)
            self.tree.addTopLevelItem(item)
            item.setSelected(run.id in selected)
        self._paint_colours()
        for col in range(self.tree.columnCount()):
            self.tree.resizeColumnToContents(col)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), 420))
        self.tree.blockSignals(False)
        self._update_buttons()
        self.names_changed.emit(dict(self.names))

    def _params(self, runs: list[Any]) -> dict[str, dict[str, Any]]:
        everything = self.session.store.all_params()
        return {r.id: everything.get(r.id, {}) for r in runs}

    def set_colours(self, colours: dict[str, str]) -> None:
        """The curve colour of each shown run: drawn as a swatch before its name (the plots' colour key)."""
        self.colours = dict(colours)
        self._paint_colours()

    def _paint_colours(self) -> None:
        for item in self._items():
            colour = self.colours.get(self._id(item))
            if colour:
                pixmap = QPixmap(14, 14)
                pixmap.fill(QColor("#ffffff"))  # a white frame: the swatch shows on the selection's colour too
                painter = QPainter(pixmap)
                painter.fillRect(2, 2, 10, 10, QColor(colour))
                painter.end()
                item.setIcon(0, QIcon(pixmap))
            else:
                item.setIcon(0, QIcon())
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), 420))

    def run_ids(self) -> list[str]:
        return [self._id(item) for item in self._items()]

    def _items(self) -> list[QTreeWidgetItem]:
        """The rows, top to bottom."""
        tree = self.tree
        return [item for i in range(tree.topLevelItemCount()) if (item := tree.topLevelItem(i)) is not None]

    def selected_ids(self) -> list[str]:
        return [self._id(item) for item in self.tree.selectedItems()]

    @staticmethod
    def _id(item: QTreeWidgetItem) -> str:
        return item.data(0, Qt.ItemDataRole.UserRole)

    # --- resume -------------------------------------------------------------------------------
    def resumable_selection(self) -> str | None:
        """The one selected run when it can be resumed now (no run in progress), else None."""
        items = self.tree.selectedItems()
        if len(items) != 1 or self.session.jobs or not items[0].data(0, RESUMABLE_ROLE):
            return None
        return self._id(items[0])

    def resume_selected(self) -> None:
        run_id = self.resumable_selection()
        if run_id:
            self.session.resume_run(run_id)

    def _update_buttons(self) -> None:
        watching = self.session.why_read_only()  # a watched store: nothing resumes into it
        self.resume_button.setEnabled(not watching and self.resumable_selection() is not None)
        if self.resume_button.property("usual_tip") is None:
            self.resume_button.setProperty("usual_tip", self.resume_button.toolTip())
        self.resume_button.setToolTip(watching or self.resume_button.property("usual_tip"))

    # --- rename, notes, delete -----------------------------------------------------------------
    def rename(self, run_id: str, name: str) -> None:
        """Name the run (an empty name goes back to the name made from what differs)."""
        store = self.session.store
        if not name.strip():
            from studio.core.runs.names import automatic_name

            name = automatic_name(store.params(run_id))
        store.rename(run_id, name)
        self.session.runs_changed.emit()

    def set_notes(self, run_id: str, text: str) -> None:
        self.session.store.set_notes(run_id, text)
        self.session.runs_changed.emit()

    def delete_runs(self, run_ids: list[str]) -> int:
        """Delete runs that are not training, after asking; returns how many were deleted."""
        ids = [r for r in run_ids if r not in self._training([r])]
        if not ids or not self.confirm_delete(ids):
            return 0
        for run_id in ids:
            try:
                self.session.store.delete(run_id)
            except StudioError as err:
                self.session.error.emit("Delete", str(err))
        self.session.set_selection([r for r in self.session.selected_runs() if r not in ids])
        self.session.runs_changed.emit()
        self.session.status_text.emit(f"Deleted {len(ids)} run{'s' if len(ids) != 1 else ''}")
        return len(ids)

    def rename_dialog(self, run_id: str) -> None:
        text = self.ask_text("Rename the run", "Name (empty: named by what differs):",
                             self.names.get(run_id, ""), False)
        if text is not None:
            self.rename(run_id, text)

    def notes_dialog(self, run_id: str) -> None:
        text = self.ask_text("Notes", f"Notes on {self.names.get(run_id, run_id)}:", self.notes.get(run_id, ""),
                             True)
        if text is not None:
            self.set_notes(run_id, text)

    def _ask_text(self, title: str, label: str, text: str, multiline: bool) -> str | None:
        if multiline:
            value, ok = QInputDialog.getMultiLineText(self, title, label, text)
        else:
            value, ok = QInputDialog.getText(self, title, label, text=text)
        return value if ok else None

    def _ask_delete(self, run_ids: list[str]) -> bool:
        names = "\n".join(self.names.get(r, r) for r in run_ids[:10])
        answer = QMessageBox.question(self, "Delete runs", f"Delete {len(run_ids)} run(s) with their metrics and "
                                      f"checkpoints? This cannot be undone.\n\n{names}")
        return answer == QMessageBox.StandardButton.Yes

    # --- selection -----------------------------------------------------------------------------
    def _selected(self) -> None:
        self.session.set_selection(self.selected_ids())
        self._update_buttons()

    def _select(self, ids: list[str]) -> None:
        self.tree.blockSignals(True)
        for item in self._items():
            item.setSelected(self._id(item) in ids)
        self.tree.blockSignals(False)
        self._update_buttons()
