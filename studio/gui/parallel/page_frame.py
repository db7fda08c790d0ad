"""The frame the measuring lab pages share (modes, ring all-reduce, DLRM): the form and check panel scrolling in
a left column above the job panel, a vertical split of a timeline over tabbed views, and the claim beside the
paper check's Run button and verdicts."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget


def side_column(side: QWidget, panel: QWidget) -> tuple[QWidget, QScrollArea]:
    """``side`` scrolling (the check panel scrolls its result into view there) above the job ``panel``."""
    scroll = QScrollArea()
    scroll.setWidget(side)
    scroll.setWidgetResizable(True)
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(scroll, 1)
    layout.addWidget(panel)
    column.setMinimumWidth(220)
    return column, scroll


def body(column: QWidget, timeline: QWidget, views: QWidget, right_sizes: list[int], column_width: int) -> QSplitter:
    """The column on the left; the timeline over the views on the right, which takes the width."""
    right = QSplitter(Qt.Orientation.Vertical)
    right.addWidget(timeline)
    right.addWidget(views)
    right.setChildrenCollapsible(False)
    right.setSizes(right_sizes)
    split = QSplitter(Qt.Orientation.Horizontal)
    split.addWidget(column)
    split.addWidget(right)
    split.setStretchFactor(1, 1)
    split.setSizes([column_width, 900])
    split.setCollapsible(1, False)
    return split


def claim_row(claim: QWidget, check_panel: Any | None, verdicts: QLabel) -> QHBoxLayout:
    """The claim, and beside it the paper check's Run button over its verdicts (when the page has a check)."""
    top = QHBoxLayout()
    top.addWidget(claim, 1)
    if check_panel is not None:
        buttons = QVBoxLayout()
        buttons.addWidget(check_panel.run_button)
        buttons.addWidget(verdicts)
        buttons.addStretch(1)
        top.addLayout(buttons)
    return top
