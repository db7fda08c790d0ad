"""The Queue tab: queued and running runs in order (cancel, add the current settings), and a sweep form
that fills the queue with one run per value — or pair of values — of one or two settings.

The queue lives in the run store and a detached scheduler process starts the runs (``engine/training/scheduler.py``),
so closing the window loses nothing: the runs keep going and the tab shows them again on the next start.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.runs.names import run_names
from studio.core.runs.store import flatten

COLUMNS = ("#", "Run", "State", "Devices", "Queued")
VALUES_HELP = ("a list 0.001, 0.01, 0.1 · a range start:stop:step (stop included), e.g. 16:128:16 · "
               "log-spaced start:stop:logN, e.g. 1e-4:1e-1:log4")


LEASE_CHECK_MS = 2000  # while a scheduler is shown, how often the tab looks whether it is still there


class QueueTab(QWidget):
    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._dirty = True
        self._holder: int | None = None  # the scheduler pid the status line names
        # a scheduler that exits changes no run (nothing else tells the tab): look while one is shown (issue 22)
        self.lease_timer = QTimer(self)
        self.lease_timer.setInterval(LEASE_CHECK_MS)
        self.lease_timer.timeout.connect(self._check_scheduler)

        self.add_button = QPushButton("Add current settings")
        self.add_button.setObjectName("queue_add")
        self.add_button.setToolTip("Queue a run with the settings on the left (Run > Add to queue)")
        self.add_button.clicked.connect(lambda: self.session.enqueue())
        self.cancel_button = QPushButton("Cancel selected")
        self.cancel_button.setObjectName("queue_cancel")
        self.cancel_button.setToolTip("A waiting run is taken out of the queue; a running one stops (checkpoint)")
        self.cancel_button.clicked.connect(self.cancel_selected)
        self.move_buttons: dict[str, QPushButton] = {}
        for key, text, tip in (("first", "Start next", "Move the selected waiting run to the front of the queue"),
                               ("up", "Move up", "Start the selected waiting run one place earlier"),
                               ("down", "Move down", "Start the selected waiting run one place later")):
            button = QPushButton(text)
            button.setObjectName(f"queue_move_{key}")
            button.setToolTip(tip)
            button.clicked.connect(lambda _checked=False, k=key: self.move_selected(k))
            self.move_buttons[key] = button
        self.status = QLabel("")
        self.status.setObjectName("queue_status")
        top = QHBoxLayout()
        top.addWidget(self.add_button)
        top.addWidget(self.cancel_button)
        top.addStretch(1)
        for button in self.move_buttons.values():
            top.addWidget(button)
        self.status.setWordWrap(True)  # its own line: a long status never widens the window

        self.tree = QTreeWidget()
        self.tree.setObjectName("queue_list")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setToolTip("Running runs, then waiting runs in the order they start. On the CPU runs go one "
                             "at a time; on GPUs each takes the GPUs it asks for as they become free. Select a "
                             "waiting run to move it in the queue.")
        self.tree.itemSelectionChanged.connect(self._update_move_buttons)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self._sweep_form())
        session.runs_changed.connect(self._changed)
        session.config_changed.connect(self._update_preview)

    # --- the sweep form ----------------------------------------------------------------------
    def _sweep_form(self) -> QGroupBox:
        box = QGroupBox("Sweep: queue a run for every value")
        grid = QGridLayout(box)
        self.keys: list[QComboBox] = []
        self.values: list[QLineEdit] = []
        self.second = QCheckBox("and")
        self.second.setToolTip("Vary a second setting too: every pair of values is queued")
        for row in range(2):
            key = QComboBox()
            key.setObjectName(f"sweep_key_{row}")
            key.setEditable(True)
            key.setMinimumContentsLength(18)
            key.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            key.setToolTip("The setting to vary (section.key, as in the config file)")
            edit = key.lineEdit()  # an editable combo box has one
            if edit is not None:
                edit.setToolTip(key.toolTip())
            values = QLineEdit()
            values.setObjectName(f"sweep_values_{row}")
            values.setPlaceholderText("0.001, 0.01, 0.1" if row == 0 else "32, 128")
            values.setToolTip(VALUES_HELP)
            key.currentTextChanged.connect(self._update_preview)
            values.textChanged.connect(self._update_preview)
            grid.addWidget(QLabel("Vary") if row == 0 else self.second, row, 0)
            grid.addWidget(key, row, 1)
            grid.addWidget(QLabel("over"), row, 2)
            grid.addWidget(values, row, 3)
            self.keys.append(key)
            self.values.append(values)
        grid.setColumnStretch(3, 1)
        self.second.toggled.connect(self._update_preview)
        self.preview = QLabel("")
        self.preview.setObjectName("sweep_preview")
        self.preview.setWordWrap(True)
        self.sweep_button = QPushButton("Queue sweep")
        self.sweep_button.setObjectName("sweep_queue")
        self.sweep_button.setToolTip("Queue one run per value (or pair of values) with the other settings as on "
                                     "the left")
        self.sweep_button.clicked.connect(self.queue_sweep)
        bottom = QHBoxLayout()
        bottom.addWidget(self.preview, 1)
        bottom.addWidget(self.sweep_button)
        grid.addLayout(bottom, 2, 0, 1, 4)
        self._fill_keys()
        self.keys[0].setCurrentText("optimizer.lr")
        self.keys[1].setCurrentText("train.batch_size")
        return box

    def _fill_keys(self) -> None:
        keys = sorted(k for k in flatten(self.session.config.to_dict()) if not k.endswith(".name"))
        for combo in self.keys:
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(keys)
            combo.setCurrentText(current)
            combo.blockSignals(False)

    def sweep_points(self) -> list[tuple[Any, str]]:
        """The configs the form describes (raises StudioError with a message for a person)."""
        from studio.core.config.sweep import sweep_configs, sweep_values
        from studio.core.errors import ConfigError

        axes: dict[str, list[Any]] = {}
        for i in range(2 if self.second.isChecked() else 1):
            key, text = self.keys[i].currentText().strip(), self.values[i].text().strip()
            if not text:
                raise ConfigError(f"give the values of {key or 'the setting'}")
            if key in axes:
                raise ConfigError("vary two different settings")
            axes[key] = sweep_values(text)
        return sweep_configs(self.session.config, axes)

    def _update_preview(self, *_args: Any) -> None:
        if not self.values[0].text().strip():
            self.preview.setText(VALUES_HELP)
            self.sweep_button.setEnabled(False)
            return
        try:
            points = self.sweep_points()
        except StudioError as err:
            self.preview.setText(f"⚠ {err}")
            self.sweep_button.setEnabled(False)
            return
        names = ", ".join(name for _, name in points[:4]) + (" …" if len(points) > 4 else "")
        self.preview.setText(f"{len(points)} run{'s' if len(points) != 1 else ''}: {names}")
        self.sweep_button.setEnabled(True)

    def queue_sweep(self) -> list[str]:
        try:
            points = self.sweep_points()
        except StudioError as err:
            self.session.error.emit("Cannot queue the sweep", str(err))
            return []
        return self.session.enqueue(points)

    # --- the list ----------------------------------------------------------------------------
    def cancel_selected(self) -> None:
        for item in self.tree.selectedItems():
            self.session.cancel_queued(item.data(0, Qt.ItemDataRole.UserRole))

    def selected_waiting(self) -> tuple[str, int] | None:
        """(run id, queue position) of the one selected run when it is waiting, else None."""
        items = self.tree.selectedItems()
        if len(items) != 1 or not items[0].text(0).isdigit():
            return None
        return items[0].data(0, Qt.ItemDataRole.UserRole), int(items[0].text(0))

    def move_selected(self, where: str) -> int | None:
        """Move the selected waiting run: ``first``, ``up`` or ``down``; its new position."""
        chosen = self.selected_waiting()
        if chosen is None:
            return None
        run_id, position = chosen
        target = {"first": 1, "up": max(1, position - 1), "down": position + 1}[where]
        return self.session.move_queued(run_id, target)

    def _update_move_buttons(self) -> None:
        chosen = self.selected_waiting()
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        waiting = sum(1 for item in items if item is not None and item.text(0).isdigit())
        self.move_buttons["first"].setEnabled(chosen is not None and chosen[1] > 1)
        self.move_buttons["up"].setEnabled(chosen is not None and chosen[1] > 1)
        self.move_buttons["down"].setEnabled(chosen is not None and chosen[1] < waiting)

    def _check_scheduler(self) -> None:
        if self.session.queue.lease_holder() != self._holder:
            self._changed()

    def _changed(self, *_args: Any) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._fill_keys()
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        self._dirty = False
        queue = self.session.queue
        selected = {i.data(0, Qt.ItemDataRole.UserRole) for i in self.tree.selectedItems()}
        self.tree.clear()
        entries = queue.entries()
        store = self.session.store
        # named as the run list names them (what differs between the runs), so a sweep's runs tell apart
        names = run_names(store.all_params(), {r.id: r.name for r in store.list()}) if entries else {}
        for e in entries:
            state = "running" if e.state == "running" else "waiting"
            item = QTreeWidgetItem([str(e.position) if e.position else "▶", names.get(e.run_id, e.name), state,
                                    ", ".join(e.devices), time.strftime("%H:%M:%S", time.localtime(e.added))])
            item.setData(0, Qt.ItemDataRole.UserRole, e.run_id)
            item.setToolTip(1, f"{names.get(e.run_id, e.name)}\n{e.run_id}")  # the full name where it is cut
            self.tree.addTopLevelItem(item)
            item.setSelected(e.run_id in selected)
        header = self.tree.header()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for col in (0, 2, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        holder = self._holder = queue.lease_holder()
        if holder:
            self.lease_timer.start()
        else:
            self.lease_timer.stop()
        waiting = sum(e.state == "waiting" for e in entries)
        running = len(entries) - waiting
        self.status.setText(f"{running} running · {waiting} waiting · "
                            + (f"scheduler pid {holder}" if holder else "no scheduler running"))
        self.cancel_button.setEnabled(bool(entries))
        self._update_move_buttons()
