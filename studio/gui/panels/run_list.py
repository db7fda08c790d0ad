"""The run list: past and current runs from the run store; selecting runs overlays their curves."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QMenu,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

COLUMNS = ("Run", "Status", "Test acc", "Val acc", "Steps", "Started")
RESUMABLE_ROLE = Qt.ItemDataRole.UserRole + 1  # the run can continue from a checkpoint (core/runs.py)


class RunList(QWidget):
    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.tree = QTreeWidget()
        self.tree.setObjectName("run_list")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setToolTip("Runs in the run store. Select one to see its curves; "
                             "Ctrl/Shift-click to overlay several.")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("resume_run")
        self.resume_button.setToolTip("Continue the selected stopped, interrupted or finished run from its last "
                                      "checkpoint, in the same run (its curves continue)")
        self.resume_button.clicked.connect(self.resume_selected)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._menu)
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
        self.refresh()

    def refresh(self) -> None:
        """Reload the list from the run store, keeping the selection."""
        selected = self.session.selected_runs()
        self.tree.blockSignals(True)
        self.tree.clear()
        positions = self.session.queue_positions()
        for run in self.session.store.list():
            def num(key: str, summary: dict = run.summary) -> str:
                v = summary.get(key)
                return f"{v:.4f}" if isinstance(v, (int, float)) and v == v else ""

            status = run.status if run.status != "queued" else "starting"  # created, ranks not yet up
            status = f"queued #{positions[run.id]}" if run.id in positions else status
            item = QTreeWidgetItem([
                run.name, status, num("test_acc"), num("val_acc"), str(run.summary.get("steps", "")),
                time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created)),
            ])
            item.setData(0, Qt.ItemDataRole.UserRole, run.id)
            item.setData(0, RESUMABLE_ROLE, run.resumable)
            item.setToolTip(0, f"{run.id}\n{run.dir}")
            if run.message:
                item.setToolTip(1, run.message)
            self.tree.addTopLevelItem(item)
            item.setSelected(run.id in selected)
        for col in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(col)
        self.tree.blockSignals(False)
        self._update_buttons()

    # --- resume -------------------------------------------------------------------------------
    def resumable_selection(self) -> str | None:
        """The one selected run when it can be resumed now (no run in progress), else None."""
        items = self.tree.selectedItems()
        if len(items) != 1 or self.session.jobs or not items[0].data(0, RESUMABLE_ROLE):
            return None
        return items[0].data(0, Qt.ItemDataRole.UserRole)

    def resume_selected(self) -> None:
        run_id = self.resumable_selection()
        if run_id:
            self.session.resume_run(run_id)

    def _update_buttons(self) -> None:
        self.resume_button.setEnabled(self.resumable_selection() is not None)

    def _menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        action = menu.addAction("Resume", self.resume_selected)
        action.setEnabled(self.resumable_selection() is not None)
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def run_ids(self) -> list[str]:
        tree = self.tree
        return [tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) for i in range(tree.topLevelItemCount())]

    def _selected(self) -> None:
        ids = [item.data(0, Qt.ItemDataRole.UserRole) for item in self.tree.selectedItems()]
        self.session.set_selection(ids)
        self._update_buttons()

    def _select(self, ids: list[str]) -> None:
        self.tree.blockSignals(True)
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            item.setSelected(item.data(0, Qt.ItemDataRole.UserRole) in ids)
        self.tree.blockSignals(False)
        self._update_buttons()
