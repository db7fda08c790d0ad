"""The run list: past and current runs from the run store; selecting runs overlays their curves.

Runs are named once, when they are made, by the naming rule (``core/runs/names.py``: the model, the data and what
differs from the defaults) unless a person renamed them; a name too long for its column is shortened by the same
rule (``gui/widgets/run_picker.FittedNames``: the model and the number stay). The runs shown in the curves
carry their curve colour as a swatch (the plots' colour key). Right-click:
Resume (issue 12: continue a stopped, interrupted or finished run from its checkpoint; also a button),
Rename…, Notes…, Tags…, Delete…. Images (or a folder, or a CSV) dropped on a run's row are classified with that
run (``RunTree.files_dropped``; the Evaluation tab's Predict shows the result). Other features add theirs with
``add_context_action`` and ``add_column``.

Quick with 1,000 runs: a refresh reads the store in one query each for runs, settings (skipped, with the run
names, while the settings table and the run ids are unchanged), notes and tags, and builds the rows with updates
off; the filter box (core/runs/run_filter.py, the language of ``studio runs --filter``) hides and shows rows
without rebuilding them; a header click sorts by that column (``run_rows.RunItem``). The selection survives both.
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
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.config.external import is_external_toml
from studio.core.contracts import layout
from studio.core.errors import StudioError
from studio.core.runs import run_filter
from studio.core.runs.names import run_names
from studio.core.runs.run_filter import RunFacts, RunFilter
from studio.core.runs.store import RESUMABLE
from studio.core.vocab import JobState
from studio.gui.panels.run_groups import group_tips
from studio.gui.panels.run_rows import DEFAULT_SORT, FilterBox, RunItem, column_of, row_keys, sort_rows
from studio.gui.widgets.run_picker import FittedNames

COLUMNS = ("Run", "Status", "Test acc", "Val acc", "Steps", "Started", "Notes", "Tags")
SPREAD_COLUMNS = {"test_acc": "Test acc", "val_acc": "Val acc"}  # a seed group's spread in their tooltips
# the run has a status it can continue from (core/runs/store.py RESUMABLE); whether it has a checkpoint too is
# looked at only when asked (RunList.resumable), not for every row of every refresh
RESUMABLE_ROLE = Qt.ItemDataRole.UserRole + 1


class RunTree(QTreeWidget):
    """The list's rows. Files dropped on the row of a run with a checkpoint are for that run (``files_dropped(run_id,
    paths)``: classify them, issue 14's Predict); dropped between rows, ``run_id`` is "" (open or import them)."""

    files_dropped = Signal(str, object)

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(False)
        self.has_checkpoint: Callable[[str], bool] = lambda run_id: True  # the RunList sets it

    def run_at(self, pos: Any) -> str:
        """The run under ``pos`` (viewport coordinates) when it has a checkpoint to predict with, else ""."""
        item = self.itemAt(pos)
        if item is None or not item.data(0, RESUMABLE_ROLE):
            return ""
        run_id = item.data(0, Qt.ItemDataRole.UserRole)
        return run_id if self.has_checkpoint(run_id) else ""

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
        self.tags: dict[str, list[str]] = {}
        self.statuses: dict[str, str] = {}  # run id → status in the store, at the last refresh
        self.facts: dict[str, RunFacts] = {}  # what the filter and the sort see of each run
        self.filter: RunFilter = RunFilter("")
        self._params_seen: tuple[Any, ...] = ()  # (settings table version, run ids) of the cached settings
        self._params_cache: dict[str, dict[str, Any]] = {}
        self._checkpoints: dict[str, bool] = {}  # run id → has a checkpoint (looked at when asked)
        self._dirs: dict[str, Any] = {}  # run id → its folder
        self._item_of: dict[str, RunItem] = {}  # run id → its row
        self._painted: dict[str, str] = {}  # run id → the colour its swatch shows
        self._hidden: list[str] = []  # the runs the filter hides
        self.colours: dict[str, str] = {}
        self.extra_columns: list[tuple[str, Callable[[Any], str]]] = []
        self.context_actions: list[ContextAction] = []
        # Asked before deleting and for a new name / notes; tests replace them.
        self.confirm_delete: Callable[[list[str]], bool] = self._ask_delete
        self.ask_text: Callable[[str, str, str, bool], str | None] = self._ask_text
        self.tree = RunTree()
        self.tree.has_checkpoint = self.has_checkpoint
        self.tree.setObjectName("run_list")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)  # 1,000 rows: one row's height stands for all
        self.tree.setItemDelegateForColumn(0, FittedNames(self.tree))  # a long name keeps its model and number
        header = self.tree.header()
        header.setResizeContentsPrecision(200)  # column widths from the first 200 rows and the visible ones
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(COLUMNS.index(DEFAULT_SORT[0]), DEFAULT_SORT[1])
        header.sortIndicatorChanged.connect(lambda column, order: self.sort(column, order))
        header.setToolTip("Click a column's title to sort by it (again: the other way); empty cells go last")
        self.filter_box = FilterBox()
        self.filter_box.changed.connect(self.set_filter)
        find = QAction("Filter runs", self)
        find.setShortcut(QKeySequence(QKeySequence.StandardKey.Find))  # Ctrl+F: to the filter box
        find.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        find.triggered.connect(self._find)
        self.addAction(find)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setToolTip("Runs in the run store, named by their model, data and what differs from the defaults. "
                             "Select one to see its "
                             "curves; Ctrl/Shift-click to overlay several (the swatch is the run's curve colour). "
                             "Right-click to rename, add notes or delete. Drop images or a CSV on a finished run to "
                             "classify them with it.")
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.itemDoubleClicked.connect(lambda item, col: self.rename_dialog(self._id(item)) if col == 0 else None)
        rename_key = QAction("Rename", self.tree)
        rename_key.setShortcut(QKeySequence(Qt.Key.Key_F2))
        rename_key.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        rename_key.triggered.connect(lambda: self.rename_dialog(self.selected_ids(True)[0])
                                     if len(self.selected_ids(True)) == 1 else None)
        self.tree.addAction(rename_key)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("resume_run")
        self.resume_button.setToolTip("Continue the selected stopped, interrupted or finished run from its last "
                                      "checkpoint, in the same run (its curves continue)")
        self.resume_button.clicked.connect(self.resume_selected)
        self.count_label = QLabel("")  # how many runs the filter shows, or why the filter cannot be read
        self.count_label.setObjectName("run_count")
        self.count_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # a long reason
        # is cut, not a wider panel (the whole sentence is its tooltip and the filter box's)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.filter_box)
        box.addWidget(self.tree)
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label, 1)
        buttons.addWidget(self.resume_button)
        box.addLayout(buttons)
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
        self.add_context_action("Tags…", self.tags_dialog, lambda ids: bool(ids),
                                "Tag the selected runs (one word each: baseline, sweep-3); filter by tag:NAME")
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
        ids = self.selected_ids(visible_only=True)  # a hidden (filtered out) run is not acted on
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
        """Reload the list from the run store, keeping the selection, the filter and the sort."""
        selected = set(self.session.selected_runs())
        store = self.session.store
        runs = store.list()  # with every run's tags
        params = self._params(runs)
        self.notes = store.notes()
        self.tags = {r.id: r.tags for r in runs if r.tags}
        self.statuses = {r.id: r.status for r in runs}
        self._dirs = {r.id: r.dir for r in runs}
        self._checkpoints = {}
        positions = self.session.queue_positions()
        items: list[RunItem] = []
        self.facts = {}
        self.group_tips = group_tips(params, {r.id: r.summary for r in runs})  # seed groups' mean ± std, n
        for run in runs:
            def num(key: str, summary: dict = run.summary) -> str:
                v = summary.get(key)
                return f"{v:.4f}" if isinstance(v, (int, float)) and v == v else ""

            name = self.names.get(run.id, run.name)
            status = run.status if run.status != JobState.QUEUED else "starting"  # created, ranks not yet up
            status = f"queued #{positions[run.id]}" if run.id in positions else status
            notes = self.notes.get(run.id, "")
            facts = self.facts[run.id] = RunFacts(run.id, name, run.status, run.created, tuple(run.tags), notes,
                                                  params.get(run.id, {}), run.summary)
            extras = [value(run) for _, value in self.extra_columns]
            item = RunItem([name, status, num("test_acc"), num("val_acc"), str(run.summary.get("steps", "")),
                            time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created)), notes.split("\n", 1)[0],
                            ", ".join(run.tags), *extras], row_keys(facts, name, status, extras))
            item.setData(0, Qt.ItemDataRole.UserRole, run.id)
            item.setData(0, RESUMABLE_ROLE, run.status in RESUMABLE and not is_external_toml(run.config))
            item.setToolTip(0, f"{name}\n{run.id}\n{run.dir}")
            if notes:
                item.setToolTip(COLUMNS.index("Notes"), notes)
            if run.message:
                item.setToolTip(1, run.message)
            for key, tip in self.group_tips.get(run.id, {}).items():
                item.setToolTip(COLUMNS.index(SPREAD_COLUMNS[key]), tip)
            items.append(item)
        tree = self.tree
        tree.setUpdatesEnabled(False)
        tree.blockSignals(True)
        try:
            tree.clear()
            header = tree.header()
            column, order = header.sortIndicatorSection(), header.sortIndicatorOrder()
            self._item_of = {self._id(item): item for item in items}
            tree.addTopLevelItems(sort_rows(items, column, order == Qt.SortOrder.DescendingOrder))
            for item in items:
                if self._id(item) in selected:
                    item.setSelected(True)
            self.filter_box.known = run_filter.known_keys(self.facts.values())
            self.filter = self.filter_box.current()
            self._apply_filter()
            self._paint_colours(fresh=True)
            for col in range(tree.columnCount()):
                tree.resizeColumnToContents(col)
            tree.setColumnWidth(0, min(tree.columnWidth(0), 420))
        finally:
            tree.blockSignals(False)
            tree.setUpdatesEnabled(True)
        self._update_buttons()
        self.names_changed.emit(dict(self.names))

    def _params(self, runs: list[Any]) -> dict[str, dict[str, Any]]:
        """Every run's settings, and ``self.names`` made from them: read again only when the settings table or the
        runs (ids, stored names) changed since the last refresh."""
        store = self.session.store
        seen = (store.params_version(), tuple((r.id, r.name) for r in runs))
        if seen != self._params_seen:
            everything = store.all_params()
            self._params_cache = {r.id: everything.get(r.id, {}) for r in runs}
            self.names = run_names(self._params_cache, {r.id: r.name for r in runs})
            self._params_seen = seen
        return self._params_cache

    # --- filter and sort -------------------------------------------------------------------------
    def _find(self) -> None:
        self.filter_box.setFocus()
        self.filter_box.selectAll()

    def set_filter(self, expression: RunFilter | str) -> None:
        """Show only the runs the filter matches (hiding rows, never rebuilding them); a string is typed into the
        filter box (a bad one turns it red and shows every run)."""
        if isinstance(expression, str):
            self.filter_box.setText(expression)  # its changed signal comes back here with the parsed filter
            return
        self.filter = expression
        self.tree.setUpdatesEnabled(False)
        try:
            self._apply_filter()
        finally:
            self.tree.setUpdatesEnabled(True)

    def _apply_filter(self) -> None:
        match = self.filter.matches
        facts = self.facts
        hidden: list[str] = []
        for run_id, item in self._item_of.items():
            run_facts = facts.get(run_id)
            hide = run_facts is not None and not match(run_facts)
            if hide:
                hidden.append(run_id)
            if item.isHidden() != hide:
                item.setHidden(hide)
        self._hidden = hidden
        total = len(self.facts)
        shown = total - len(hidden)
        error = self.filter_box.error
        self.count_label.setText(f"⚠ {error}" if error else f"{shown:,} of {total:,} runs" if shown != total
                                 else f"{total:,} runs")
        self.count_label.setToolTip(error)

    def shown_ids(self) -> list[str]:
        """The runs the filter lets through, top to bottom."""
        return [self._id(item) for item in self._items() if not item.isHidden()]

    def sort(self, column: int | str, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by ``column`` (an index or a title): numbers as numbers, dates as dates, empty last."""
        index = column if isinstance(column, int) else column_of(self.tree, column)
        if index < 0:
            return
        header = self.tree.header()
        if (header.sortIndicatorSection(), header.sortIndicatorOrder()) != (index, order):
            header.blockSignals(True)
            header.setSortIndicator(index, order)
            header.blockSignals(False)
        self.tree.setUpdatesEnabled(False)
        try:
            self._sort(index, order)
        finally:
            self.tree.setUpdatesEnabled(True)

    def _sort(self, column: int, order: Qt.SortOrder) -> None:
        RunItem.column = column
        RunItem.descending = order == Qt.SortOrder.DescendingOrder
        self.tree.sortItems(column, order)

    def set_colours(self, colours: dict[str, str]) -> None:
        """The curve colour of each shown run: drawn as a swatch before its name (the plots' colour key)."""
        self.colours = dict(colours)
        self._paint_colours()

    def _paint_colours(self, fresh: bool = False) -> None:
        """Draw the swatches that changed (``fresh``: the rows were just built, without any)."""
        painted = {} if fresh else self._painted
        for run_id in set(painted) | set(self.colours):
            colour = self.colours.get(run_id)
            item = self._item_of.get(run_id)
            if item is None or painted.get(run_id) == colour:
                continue
            if colour:
                pixmap = QPixmap(14, 14)
                pixmap.fill(QColor("#ffffff"))  # a white frame: the swatch shows on the selection's colour too
                painter = QPainter(pixmap)
                painter.fillRect(2, 2, 10, 10, QColor(colour))
                painter.end()
                item.setIcon(0, QIcon(pixmap))
            else:
                item.setIcon(0, QIcon())
        self._painted = {r: c for r, c in self.colours.items() if r in self._item_of}
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), 420))

    def run_ids(self) -> list[str]:
        return [self._id(item) for item in self._items()]

    def _items(self) -> list[QTreeWidgetItem]:
        """The rows, top to bottom."""
        tree = self.tree
        return [item for i in range(tree.topLevelItemCount()) if (item := tree.topLevelItem(i)) is not None]

    def selected_ids(self, visible_only: bool = False) -> list[str]:
        """The selected runs (the curves show them), also those the filter hides unless ``visible_only`` (Qt's
        ``selectedItems`` leaves hidden rows out; they stay selected in its model)."""
        shown = [self._id(item) for item in self.tree.selectedItems()]
        if visible_only:
            return shown
        return shown + [r for r in self._hidden if self._item_of[r].isSelected()]

    @staticmethod
    def _id(item: QTreeWidgetItem) -> str:
        return item.data(0, Qt.ItemDataRole.UserRole)

    # --- resume -------------------------------------------------------------------------------
    def resumable_selection(self) -> str | None:
        """The one selected run when it can be resumed now (no run in progress), else None."""
        items = self.tree.selectedItems()
        if len(items) != 1 or self.session.jobs or not items[0].data(0, RESUMABLE_ROLE):
            return None
        return self._id(items[0]) if self.has_checkpoint(self._id(items[0])) else None

    def has_checkpoint(self, run_id: str) -> bool:
        """Whether the run saved a checkpoint (looked at once per refresh, when first asked)."""
        if run_id not in self._checkpoints:
            folder = self._dirs.get(run_id)
            self._checkpoints[run_id] = folder is not None and layout.last_checkpoint(folder) is not None
        return self._checkpoints[run_id]

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
        """Name the run (an empty name goes back to the naming rule's name)."""
        store = self.session.store
        if not name.strip():
            from studio.core.runs.names import fresh_name

            name = fresh_name(store.params(run_id), [n for r, n in self.names.items() if r != run_id])
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

    def retag(self, run_ids: list[str], add: list[str], remove: list[str]) -> None:
        """Add and take off tags of runs (a bad tag: the error, nothing changed)."""
        store = self.session.store
        try:
            if remove:
                store.remove_tags(run_ids, remove)
            if add:
                store.add_tags(run_ids, add)
        except StudioError as err:
            self.session.error.emit("Tags", str(err))
            return
        self.session.runs_changed.emit()

    def tags_dialog(self, run_ids: list[str]) -> None:
        """Ask for the tags of the selected runs: the ones they all have are shown; a tag added is added to each,
        one taken away is taken off each (tags only some of them have stay)."""
        if not run_ids:
            return
        common = sorted(set.intersection(*(set(self.tags.get(r, [])) for r in run_ids)))
        who = self.names.get(run_ids[0], run_ids[0]) if len(run_ids) == 1 else f"the {len(run_ids)} selected runs"
        text = self.ask_text("Tags", f"Tags of {who} (one word each, separated by spaces or commas):",
                             " ".join(common), False)
        if text is None:
            return
        words = list(dict.fromkeys(w for w in text.replace(",", " ").split() if w))
        self.retag(run_ids, [w for w in words if w not in common], [t for t in common if t not in words])

    def rename_dialog(self, run_id: str) -> None:
        text = self.ask_text("Rename the run", "Name (empty: named by its settings):",
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
                                      f"checkpoints? This cannot be undone.\n\n{names}{self._built_on(run_ids)}")
        return answer == QMessageBox.StandardButton.Yes

    def _built_on(self, run_ids: list[str]) -> str:
        """What the delete question says of the runs built on these (fine-tuned from them): they keep working."""
        doomed = set(run_ids)
        children = {c.id: c for r in run_ids for c in self.session.store.descendants(r) if c.id not in doomed}
        if not children:
            return ""
        names = "\n".join(self.names.get(c, children[c].name) for c in list(children)[:10])
        return (f"\n\n{len(children)} other run{'s were' if len(children) != 1 else ' was'} fine-tuned from "
                f"{'them' if len(run_ids) != 1 else 'it'} and keep{'s' if len(children) == 1 else ''} working (each "
                f"holds its own weights and vocabulary):\n{names}")

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
