"""The run pickers of the analysis views, all naming runs as the run list does (``core/runs/names.py``):

- ``RunBox``: one run (Landscape, Evaluation, Histograms, Attention, Compression); a name too long for the box
  is shortened by the naming rule (``names.fit``: the model and the number stay), whole in the tooltip;
- ``RunChecklist``: several runs (Compare, Scaling laws);
- ``RunPicker``: what a one-run view does with its ``RunBox``: list its runs, follow the run list's selection
  while idle (a selected run the view cannot show is named in the box, with why), and make a run picked in the
  box the selection, so every view shows the run just picked;
- ``FittedNames``: the item delegate that draws names fitted to their cell (the run list uses it too).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionComboBox,
    QStyleOptionViewItem,
    QStylePainter,
    QWidget,
)

from studio.core.runs.names import fit, shown_names

ID_ROLE = Qt.ItemDataRole.UserRole
TEXT_PAD = 6  # pixels a cell keeps free beside its text
ABSENT_SEP = " — "  # between a run a view cannot show and why


def run_names(session: Any, runs: list[Any] | None = None) -> dict[str, str]:
    """Every run's name, as the run list shows it (``runs``: the store's ``list()``, when the caller has it)."""
    return shown_names(session.store, runs)


def full_names_as_tooltips(box: QComboBox) -> None:
    """A run chooser cuts long run names short ("mlp · adam · moons · 2026…"): its tooltip starts with the
    chosen run's full name (then what the box is for), and each entry of its list has its full name as tooltip.
    Follows the box's items and choice from now on."""
    purpose = box.toolTip()

    def follow_choice(_index: int = -1) -> None:
        name = box.currentText()
        box.setToolTip(f"{name}\n{purpose}" if name and purpose else name or purpose)

    def name_rows(_parent: QModelIndex, first: int, last: int) -> None:
        for row in range(first, last + 1):
            box.setItemData(row, box.itemText(row), Qt.ItemDataRole.ToolTipRole)

    box.model().rowsInserted.connect(name_rows)
    box.currentIndexChanged.connect(follow_choice)
    box.currentTextChanged.connect(lambda _t: follow_choice())
    name_rows(QModelIndex(), 0, box.count() - 1)
    follow_choice()


class FittedNames(QStyledItemDelegate):
    """Draws a run's name fitted to its cell by the naming rule (``names.fit``) instead of Qt's cut at the end,
    which cut the part that tells runs apart."""

    def paint(self, painter: Any, option: QStyleOptionViewItem, index: Any) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        right = rect.right()
        if isinstance(widget, QAbstractItemView):  # a list's row may be wider than what shows of it
            right = min(right, widget.viewport().rect().right())
        room = right - rect.left() - TEXT_PAD
        opt.text = fit(opt.text, room, opt.fontMetrics.horizontalAdvance)
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)


class RunBox(QComboBox):
    """One run: item text its name, item data its id. ``picked(run_id)`` when a person chooses one (not when the
    program does). ``show_absent(name, why)``: no run chosen, and a selected run it cannot show named in the box,
    with why ("name — why")."""

    picked = Signal(str)

    def __init__(self, purpose: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.purpose = purpose
        self.details: dict[str, str] = {}  # run id → its id and status, for the tooltip
        self.absent: tuple[str, str] | None = None  # (name, why) of a selected run this box cannot show
        self.setItemDelegate(FittedNames(self))
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(16)
        self.activated.connect(lambda index: self.picked.emit(self.itemData(index) or ""))
        self.currentIndexChanged.connect(lambda _i: self._follow_choice())
        self._follow_choice()

    def set_runs(self, runs: Iterable[tuple[str, str, str]], keep: str | None = None) -> None:
        """Fill the box with ``(run_id, name, status)`` (signals blocked), choosing ``keep`` when it is among
        them; otherwise none (index -1)."""
        self.blockSignals(True)
        self.clear()
        self.details = {}
        for run_id, name, status in runs:
            self.addItem(name, run_id)
            row = self.count() - 1
            self.details[run_id] = f"{run_id} · {status}" if status else run_id
            self.setItemData(row, f"{name}\n{self.details[run_id]}", Qt.ItemDataRole.ToolTipRole)
        self.setCurrentIndex(self.findData(keep) if keep else -1)
        self.absent = None
        self.blockSignals(False)
        self._follow_choice()

    def choose(self, run_id: str) -> bool:
        """Make ``run_id`` the choice (as the program, not a person); False when it is not in the box."""
        index = self.findData(run_id)
        if index >= 0:
            self.absent = None
            self.setCurrentIndex(index)
        return index >= 0

    def show_absent(self, name: str, why: str) -> None:
        """No run chosen; the selected run ``name`` that this view cannot show named in the box, with ``why``."""
        self.absent = (name, why)  # painted by paintEvent (a placeholder text would widen the box to its length)
        if self.currentIndex() >= 0:
            self.setCurrentIndex(-1)
        else:  # no change of index, but of what the box says: the view follows it as it does a change
            self.currentIndexChanged.emit(-1)
        self._follow_choice()
        self.update()

    def _follow_choice(self) -> None:
        run_id = self.currentData()
        if run_id:
            self.setToolTip(f"{self.currentText()}\n{self.details.get(run_id, run_id)}\n{self.purpose}")
        elif self.absent is not None:
            self.setToolTip(f"{self.absent[0]}\n{self.absent[1]}\n{self.purpose}")
        else:
            self.setToolTip(self.purpose)

    def shown_text(self) -> str:
        """What the box shows now: the chosen run's name fitted to the box, or the absent run's note."""
        room, measure = self._text_rect().width() - 2, self.fontMetrics().horizontalAdvance
        if self.currentIndex() >= 0 or self.absent is None:
            return fit(self.currentText() if self.currentIndex() >= 0 else "", room, measure)
        name, why = self.absent  # the reason whole, the name fitted to what is left (at least its model's)
        tail = f"{ABSENT_SEP}{why}"
        short = fit(name, room - measure(tail), measure)
        model = name.split(" ")[0]
        if short.startswith(model) and measure(short + tail) <= room:
            return short + tail
        return fit(why, room, measure)

    def _text_rect(self) -> Any:
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        return self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def showPopup(self) -> None:  # noqa: N802 - Qt override
        """The list as wide as its longest name (up to the screen's width), so names are whole in it."""
        metrics = self.view().fontMetrics()
        widest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        screen = self.screen().availableGeometry().width() if self.screen() is not None else 1280
        self.view().setMinimumWidth(min(widest + 40, screen - 20))
        super().showPopup()


class RunChecklist(QListWidget):
    """Several runs, ticked: ``picked(run_ids)`` when a person ticks or unticks one (in list order)."""

    picked = Signal(object)

    def __init__(self, purpose: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("run_checklist")
        self.setToolTip(purpose)
        self.setItemDelegate(FittedNames(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)  # FittedNames fits the names to the width shown
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformItemSizes(True)
        self.itemChanged.connect(lambda _item: self.picked.emit(self.checked()))

    def set_runs(self, runs: Iterable[tuple[str, str, str]], checked: Iterable[str]) -> None:
        """Fill the list with ``(run_id, name, status)``, ticking ``checked`` (signals blocked)."""
        ticked = set(checked)
        self.blockSignals(True)
        self.clear()
        for run_id, name, status in runs:
            item = QListWidgetItem(name)
            item.setData(ID_ROLE, run_id)
            item.setToolTip(f"{name}\n{run_id} · {status}" if status else f"{name}\n{run_id}")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if run_id in ticked else Qt.CheckState.Unchecked)
            self.addItem(item)
        self.blockSignals(False)

    def check(self, run_ids: Iterable[str]) -> None:
        """Tick exactly ``run_ids`` (as the program: no ``picked``)."""
        wanted = set(run_ids)
        self.blockSignals(True)
        for item in self.entries():
            state = Qt.CheckState.Checked if item.data(ID_ROLE) in wanted else Qt.CheckState.Unchecked
            if item.checkState() != state:
                item.setCheckState(state)
        self.blockSignals(False)
        self.viewport().update()

    def entries(self) -> list[QListWidgetItem]:
        return [item for i in range(self.count()) if (item := self.item(i)) is not None]

    def run_ids(self) -> list[str]:
        return [item.data(ID_ROLE) for item in self.entries()]

    def checked(self) -> list[str]:
        """The ticked runs, in list order."""
        return [item.data(ID_ROLE) for item in self.entries() if item.checkState() == Qt.CheckState.Checked]

    def names(self) -> dict[str, str]:
        return {item.data(ID_ROLE): item.text() for item in self.entries()}


class RunPicker:
    """A one-run view's ``run_box`` (a ``RunBox``): its runs by name, the run list's selection followed while the
    view is idle, and a run picked in the box made the selection. A view using it has ``session`` and ``run_box``,
    defines ``busy`` and ``absent_reason`` (why a run is not in its box), and calls ``connect_picker`` once."""

    session: Any
    run_box: RunBox
    absent_reason = "not shown here"
    holds_while_busy = True  # a computation in progress keeps its run (False: a new run replaces it)

    @property
    def busy(self) -> bool:
        """True while the view computes (it then does not follow the selection); each view defines it."""
        raise NotImplementedError

    def connect_picker(self) -> None:
        """Follow the run list's selection; a run a person picks here becomes the selection."""
        self.session.selection_changed.connect(self._follow_selection)
        self.run_box.picked.connect(self._picked)

    def fill_runs(self, runs: list[Any]) -> str | None:
        """Show ``runs`` (``RunInfo``s, those of the store's this view can show) by name, keeping the choice: the
        current run, else the selected one; a selected run this view cannot show is named, with why; with no
        selection, the first. Returns the run chosen now (signals blocked: the view redraws if it changed)."""
        box = self.run_box
        current = box.currentData()
        absent = box.absent if current is None else None
        ids = [r.id for r in runs]
        selected = self.session.selected_runs()
        names = run_names(self.session)
        keep = current if current in ids else selected[0] if selected and selected[0] in ids else None
        if keep is None and not absent and selected and selected[0] in names:
            absent = (names[selected[0]], self.absent_reason)  # the selected run, which this view cannot show
        if keep is None and not absent and ids:
            keep = ids[0]
        box.set_runs(((r.id, names.get(r.id, r.name), r.status) for r in runs), keep)
        if keep is None and absent:
            box.blockSignals(True)
            box.show_absent(*absent)
            box.blockSignals(False)
        return keep

    def select_run(self, run_id: str) -> bool:
        return self.run_box.choose(run_id)

    def _follow_selection(self, run_ids: list[str]) -> None:
        if not run_ids or (self.busy and self.holds_while_busy) or run_ids[0] == self.run_box.currentData():
            return
        if not self.select_run(run_ids[0]):
            name = run_names(self.session).get(run_ids[0])
            if name is not None:  # a run this view cannot show: named, with why, and nothing else shown
                self.run_box.show_absent(name, self.absent_reason)

    def _picked(self, run_id: str) -> None:
        if run_id and self.session.selected_runs() != [run_id]:
            self.session.set_selection([run_id])

    def run_dir(self) -> Path | None:
        run_id = self.run_box.currentData()
        return self.session.store.get(run_id).dir if run_id else None
