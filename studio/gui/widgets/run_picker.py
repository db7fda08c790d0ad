"""The run chooser shared by the tabs that work on one run (Landscape, Evaluation).

A tab using it has ``session``, a ``run_box`` combo whose item data are run ids, and a ``busy`` flag.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QComboBox


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


class RunPicker:
    """Select a run in ``run_box``, follow the run list's selection while idle, and name the run's folder."""

    session: Any
    run_box: Any

    @property
    def busy(self) -> bool:
        """True while the tab computes (it then does not follow the selection); each tab defines it."""
        raise NotImplementedError

    def select_run(self, run_id: str) -> bool:
        index = self.run_box.findData(run_id)
        if index >= 0:
            self.run_box.setCurrentIndex(index)
        return index >= 0

    def _follow_selection(self, run_ids: list[str]) -> None:
        if run_ids and not self.busy:
            self.select_run(run_ids[0])

    def run_dir(self) -> Path | None:
        run_id = self.run_box.currentData()
        return self.session.store.get(run_id).dir if run_id else None
