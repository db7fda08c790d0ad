"""Compare's seed groups table: one row per group of runs that differ only in the seed (``core/runs/compare.
compare_groups``), with its n, its seeds and each final metric as mean ± std."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from studio.core.contracts.runs import CompareGroup, MetricSpread
from studio.core.runs.compare import format_value
from studio.gui.panels.run_groups import seed_order

NO_GROUP = "No seed group among these runs: runs that differ only in the seed (studio train --seeds 0,1,2) form one."


def spread_text(s: MetricSpread) -> str:
    """``0.9120 ± 0.0040``; a single run's number alone."""
    mean, std, n = s.get("mean"), s.get("std"), s.get("n") or 1
    if mean is None:
        return ""
    return f"{mean:.4f}" if n < 2 or std is None else f"{mean:.4f} ± {std:.4f}"


def fill_groups(table: QTableWidget, groups: list[CompareGroup], metric_names: list[str]) -> None:
    """The groups' rows: name, n, seeds, then mean ± std of each metric (its 95 % interval in the tooltip)."""
    columns = ["Seed group", "n", "Seeds", *metric_names]
    table.clear()
    table.setColumnCount(len(columns))
    table.setRowCount(len(groups))
    table.setHorizontalHeaderLabels(columns)
    for r, g in enumerate(groups):
        cells = [QTableWidgetItem(g["name"]), QTableWidgetItem(str(g["n"])),
                 QTableWidgetItem(", ".join(format_value(s) for s in sorted(g["seeds"], key=seed_order)))]
        for m in metric_names:
            s = g["metrics"].get(m)
            item = QTableWidgetItem(spread_text(s) if s else "")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if s and s.get("ci95") is not None:
                item.setToolTip(f"mean {s['mean']:.4f}, std {s['std']:.4f}, n={s['n']}; "
                                f"95 % interval of the mean ± {s['ci95']:.4f}")
            cells.append(item)
        cells[0].setToolTip("\n".join(g["run_ids"]))
        for c, item in enumerate(cells):
            table.setItem(r, c, item)
    table.resizeColumnsToContents()
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
