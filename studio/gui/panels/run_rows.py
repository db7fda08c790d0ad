"""The run list's rows and its filter box: a row that sorts by its column's value (numbers as numbers, dates as
dates, empty last in either direction) and a box that speaks core/runs/run_filter.py's language (red, with the
sentence as its tooltip, while the expression is bad)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLineEdit, QToolButton, QTreeWidgetItem

from studio.core.errors import ConfigError
from studio.core.runs import run_filter
from studio.core.runs.run_filter import RunFacts, RunFilter
from studio.gui.session import theme

SortKey = tuple[int, Any] | None  # (0, number) before (1, text); None: empty, always last


def sort_key(value: Any) -> SortKey:
    """A cell's value as it sorts: a number, text (case-insensitive), or None (empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if value != value else (0, float(value))
    text = str(value)
    try:
        return (0, float(text))
    except ValueError:
        return (1, text.lower())


class RunItem(QTreeWidgetItem):
    """A run's row; ``keys[column]`` is what the column sorts by (``RunItem.descending``: the order being sorted
    in, so that empty cells go last both ways)."""

    column = 0  # set by RunList before every sort (one attribute read per comparison, not a call into Qt)
    descending = False

    def __init__(self, texts: list[str], keys: list[SortKey]) -> None:
        super().__init__(texts)
        self.keys = keys

    def __lt__(self, other: Any) -> bool:
        column = RunItem.column
        a = self.keys[column] if column < len(self.keys) else None
        b = other.keys[column] if isinstance(other, RunItem) and column < len(other.keys) else None
        if a is None or b is None:
            return a is not None and b is None if not RunItem.descending else a is None and b is not None
        return a < b


def sort_rows(items: list[RunItem], column: int, descending: bool) -> list[RunItem]:
    """The rows in the order ``RunItem.__lt__`` gives (one Python sort before they are added, instead of a sort
    inside Qt that calls back into Python for every comparison); ties keep their order."""
    def key(item: RunItem) -> SortKey:
        return item.keys[column] if column < len(item.keys) else None

    full = [item for item in items if key(item) is not None]
    full.sort(key=key, reverse=descending)  # type: ignore[arg-type]  # None is filtered out
    return full + [item for item in items if key(item) is None]


def row_keys(facts: RunFacts, name: str, status: str, extras: list[str]) -> list[SortKey]:
    """The sort keys of the standard columns (``COLUMNS`` of run_list.py), then of the extra columns' texts."""
    summary = facts.summary
    return [sort_key(name), sort_key(status) if status else None, sort_key(summary.get("test_acc")),
            sort_key(summary.get("val_acc")), sort_key(summary.get("steps")), (0, facts.created),
            sort_key(facts.notes), sort_key(", ".join(facts.tags)), *(sort_key(t) for t in extras)]


class FilterBox(QLineEdit):
    """The filter expression; ``changed(RunFilter)`` on every edit that parses, and on one that does not an empty
    filter (every run shown) while the box is red with the reason as its tooltip."""

    changed = Signal(object)
    USUAL_TIP = ("Filter the runs. Plain words search name, id, status, dataset, model, optimizer, tags and notes "
                 "(all must match); key:value for a field or setting (status:finished, model:mlp, tag:baseline, "
                 "optim.lr:0.1); comparisons on numbers (test_acc>0.8, epochs>=10). `studio runs --filter` takes "
                 "the same.")

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("run_filter")
        self.setPlaceholderText("Filter runs: words, status:finished, tag:baseline, test_acc>0.8 …")
        self.setClearButtonEnabled(True)
        for button in self.findChildren(QToolButton):  # the clear button Qt adds
            button.setToolTip("Clear the filter (Escape)")
        self.setToolTip(self.USUAL_TIP)
        self.known: set[str] = set()  # the settings and summary keys of the runs listed (refresh sets them)
        self.error = ""
        self.textChanged.connect(lambda _text: self.changed.emit(self.current()))

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape and self.text():  # Escape clears the filter
            self.clear()
            return
        super().keyPressEvent(event)

    def current(self) -> RunFilter:
        """The filter the text says; an empty one (and the box red) while it cannot be read."""
        try:
            parsed = run_filter.parse(self.text(), self.known or None)
            self.error = ""
        except ConfigError as err:
            parsed, self.error = RunFilter(""), str(err)
        self.setProperty("invalid", bool(self.error))
        red = QColor(theme.error_colour())
        self.setStyleSheet(f"QLineEdit {{ border: 1px solid {red.name()}; background: rgba({red.red()}, {red.green()}, "
                           f"{red.blue()}, 40); }}" if self.error else "")
        self.setToolTip(f"⚠ {self.error}" if self.error else self.USUAL_TIP)
        self.setStatusTip(self.error)
        return parsed


def column_of(tree: Any, title: str) -> int:
    """The index of the column headed ``title`` (-1: none)."""
    header = tree.headerItem()
    return next((c for c in range(tree.columnCount()) if header.text(c) == title), -1)


DEFAULT_SORT = ("Started", Qt.SortOrder.DescendingOrder)  # newest first, as the store lists them
