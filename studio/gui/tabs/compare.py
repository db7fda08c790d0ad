"""The Compare tab: the runs ticked in its run list (which follows the run list's selection; a run ticked here becomes
part of the selection: ``gui/widgets/run_picker.RunChecklist``) side by side — a sortable table of every setting that
differs and the final metrics, parallel coordinates of the settings against a chosen metric, and the full
config diff of two runs. Reads the run store (``core/runs/compare.py``); nothing runs in the background.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.contracts.runs import CompareTable
from studio.core.runs.compare import compare_runs, config_diff, format_metric, format_value, parallel_axes
from studio.gui.plots.parallel import ParallelCoordinates
from studio.gui.tabs.compare_groups import NO_GROUP, fill_groups
from studio.gui.widgets.run_picker import RunChecklist, run_names

HINT = "Tick two or more runs on the left (or select them in the run list with Ctrl- or Shift-click) to compare them."
CHANGED = QColor(230, 159, 0, 70)  # Okabe–Ito orange, translucent: reads on light and dark


class SortItem(QTableWidgetItem):
    """A cell that sorts by its value (numbers as numbers; missing values last), not by its text."""

    def __init__(self, value: Any, text: str | None = None) -> None:
        super().__init__(format_value(value) if text is None else text)
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
        self.key = (0, float(value), "") if number else (1 if value is not None else 2, 0.0, format_value(value))
        if number:
            self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        return self.key < getattr(other, "key", (3, 0.0, ""))


def _table(name: str) -> QTableWidget:
    table = QTableWidget()
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)  # compact rows
    table.setAlternatingRowColors(True)
    return table


class CompareTab(QWidget):
    # it works on stored runs, not on the next run's settings: the window gives it the settings panel's width
    # (at 1024 px its plots were cramped beside the panel; issue 22)
    uses_settings_panel = False

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: CompareTable = {"differing": [], "metric_names": [], "runs": [], "groups": []}
        self._dirty = True

        self.picker = RunChecklist("The runs to compare: tick two or more (the run list's selection, too)")
        self.picker.picked.connect(self.session.set_selection)
        self.summary = QLabel(HINT)
        self.summary.setObjectName("compare_summary")
        self.summary.setWordWrap(True)
        self.table = _table("compare_table")
        self.table.setSortingEnabled(True)
        self.table.setToolTip("Every setting that differs between the selected runs, then their final metrics. "
                              "Click a column header to sort.")

        self.metric_choice = QComboBox()  # not ``metric``: that would hide QWidget.metric, which Qt calls
        self.metric_choice.setObjectName("parallel_metric")
        self.metric_choice.setToolTip("The metric on the last axis; it also colours the lines "
                                      "(dark: low, yellow: high)")
        self.metric_choice.currentTextChanged.connect(self._draw_parallel)
        self.parallel = ParallelCoordinates()
        parallel_page = QWidget()
        pl = QVBoxLayout(parallel_page)
        row = QHBoxLayout()
        row.addWidget(QLabel("Metric:"))
        row.addWidget(self.metric_choice)
        row.addStretch(1)
        pl.addLayout(row)
        pl.addWidget(self.parallel, 1)

        self.left = QComboBox()
        self.right = QComboBox()
        for combo, side in ((self.left, "left"), (self.right, "right")):
            combo.setObjectName(f"diff_{side}")
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(14)
            combo.setToolTip(f"The run on the {side} of the config diff")
            combo.currentIndexChanged.connect(self._draw_diff)
        self.only_changed = QCheckBox("Only differences")
        self.only_changed.setObjectName("diff_only_changed")
        self.only_changed.setToolTip("Hide the settings the two runs share")
        self.only_changed.toggled.connect(self._draw_diff)
        self.diff = _table("config_diff")
        self.diff.setToolTip("Every setting of the two runs; the ones that differ are highlighted")
        diff_page = QWidget()
        dl = QVBoxLayout(diff_page)
        row = QHBoxLayout()
        row.addWidget(self.left, 1)
        row.addWidget(QLabel("vs"))
        row.addWidget(self.right, 1)
        row.addWidget(self.only_changed)
        dl.addLayout(row)
        dl.addWidget(self.diff, 1)

        self.groups = _table("compare_groups")
        self.groups.setToolTip("Runs that differ only in the seed, as one: each final metric's mean ± std over "
                               "the seeds (hover a number for its 95 % interval)")
        self.no_groups = QLabel(NO_GROUP)
        self.no_groups.setWordWrap(True)
        groups_page = QWidget()
        gl = QVBoxLayout(groups_page)
        gl.addWidget(self.no_groups)
        gl.addWidget(self.groups, 1)

        self.views = QTabWidget()
        self.views.setObjectName("compare_views")
        self.views.addTab(parallel_page, "Parallel coordinates")
        self.views.addTab(diff_page, "Config diff")
        self.views.addTab(groups_page, "Seed groups")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.views)
        split.setSizes([260, 420])
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.summary)
        rl.addWidget(split, 1)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.picker)
        sides.addWidget(right)
        sides.setStretchFactor(1, 1)
        sides.setSizes([230, 800])
        layout = QVBoxLayout(self)
        layout.addWidget(sides, 1)

        session.selection_changed.connect(self._changed)
        session.runs_changed.connect(self._changed)

    # --- refreshing: only while shown --------------------------------------------------------
    def _changed(self, *_args: Any) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Read the ticked runs (the selection) from the store and redraw everything."""
        self._dirty = False
        store = self.session.store
        runs = store.list()
        names = run_names(self.session, runs)
        known = {r.id for r in runs}
        ids = [i for i in self.session.selected_runs() if i in known]
        self.picker.set_runs(((r.id, names.get(r.id, r.name), r.status) for r in runs), ids)
        self.result = compare_runs(store, ids) if len(ids) >= 2 else {"differing": [], "metric_names": [],
                                                                       "runs": [], "groups": []}
        if len(ids) < 2:
            self.summary.setText(HINT)
        else:
            n = len(self.result["differing"])
            k = len(self.result.get("groups", []))
            self.summary.setText(f"{len(ids)} runs · {n} setting{'s' if n != 1 else ''} differ"
                                 + ("" if n else " (the same config: compare their metrics)")
                                 + (f" · {k} seed group{'s' if k != 1 else ''} (mean ± std: the Seed groups tab)"
                                    if k else ""))
        self._fill_table()
        groups = self.result.get("groups", [])
        fill_groups(self.groups, groups, self.result["metric_names"])
        self.no_groups.setVisible(not groups)
        self._fill_metric_choice()
        self._fill_diff_choice()

    def _fill_table(self) -> None:
        res = self.result
        columns = ["Run", "Status", *res["differing"], *res["metric_names"]]
        table = self.table
        table.setSortingEnabled(False)
        table.clear()
        table.setColumnCount(len(columns))
        table.setRowCount(len(res["runs"]))
        table.setHorizontalHeaderLabels(columns)
        bold = QFont()
        bold.setBold(True)
        for c in range(2 + len(res["differing"]), len(columns)):
            header = table.horizontalHeaderItem(c)  # set by setHorizontalHeaderLabels above
            if header is not None:
                header.setFont(bold)  # metrics in bold, settings plain
        for r, run in enumerate(res["runs"]):
            name = SortItem(run["name"])
            name.setToolTip(f"{run['name']}\n{run['run_id']}")  # the full name where the column cuts it
            name.setData(Qt.ItemDataRole.UserRole, run["run_id"])
            cells = [name, SortItem(run["status"])]
            cells += [SortItem(v) for v in run["settings"].values()]
            cells += [SortItem(v, format_metric(v)) for v in run["metrics"].values()]
            for c, item in enumerate(cells):
                table.setItem(r, c, item)
        table.setSortingEnabled(True)
        table.resizeColumnsToContents()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)

    def _fill_metric_choice(self) -> None:
        names = self.result["metric_names"]
        current = self.metric_choice.currentText()
        self.metric_choice.blockSignals(True)
        self.metric_choice.clear()
        self.metric_choice.addItems(names)
        if names:
            self.metric_choice.setCurrentText(current if current in names else names[0])
        self.metric_choice.blockSignals(False)
        self._draw_parallel()

    def _draw_parallel(self, *_args: Any) -> None:
        metric = self.metric_choice.currentText()
        runs = self.result["runs"]
        if not runs or not metric:
            self.parallel.show_empty()
            return
        axes = parallel_axes(self.result, metric)
        self.parallel.show_axes(axes, [r["name"] for r in runs], [r["metrics"].get(metric) for r in runs])

    def _fill_diff_choice(self) -> None:
        runs = self.result["runs"]
        for combo, default in ((self.left, 0), (self.right, 1)):
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for run in runs:
                combo.addItem(run["name"], run["run_id"])
            ids = [r["run_id"] for r in runs]
            if ids:
                combo.setCurrentIndex(ids.index(current) if current in ids else min(default, len(ids) - 1))
            combo.blockSignals(False)
        self._draw_diff()

    def _draw_diff(self, *_args: Any) -> None:
        a, b = self.left.currentData(), self.right.currentData()
        table = self.diff
        table.clear()
        if not a or not b:
            table.setRowCount(0)
            table.setColumnCount(0)
            return
        store = self.session.store
        rows = config_diff(store.params(a), store.params(b), only_different=self.only_changed.isChecked())
        table.setColumnCount(3)
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels(["Setting", self.left.currentText(), self.right.currentText()])
        for r, row in enumerate(rows):
            cells = [QTableWidgetItem(row.key), QTableWidgetItem(format_value(row.left)),
                     QTableWidgetItem(format_value(row.right))]
            for c, item in enumerate(cells):
                if not row.same:
                    item.setBackground(QBrush(CHANGED))
                    if c == 0:
                        item.setToolTip("differs")
                table.setItem(r, c, item)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for c in (1, 2):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
