"""Axis helpers every plot shares."""

from __future__ import annotations

import pyqtgraph as pg


def plain_numbers(axis: pg.AxisItem) -> None:
    """Tick labels in the data's own units, never SI-scaled. pyqtgraph 0.14's ``enableAutoSIPrefix(False)`` still
    computes a scale from the axis's current range (its issue #2899): on an empty plot's [-0.5, 0.5] that is
    ×1000, kept from then on (with the prefix off nothing recomputes it), so a panel styled while empty —
    e.g. on entering presentation mode — later read "loss 500–2000, epoch 10000–20000". Reset it to 1."""
    axis.enableAutoSIPrefix(False)
    axis.autoSIPrefixScale = 1.0
    axis.labelUnitPrefix = ""
    axis.picture = None  # the cached tick picture was drawn with the old scale
    axis.update()


class IntegerAxis(pg.AxisItem):
    """An axis of whole numbers (steps): ticks only at integers, labelled as integers, never SI-scaled (a
    40-step run's histogram read "step (×0.001) −400…400": one step at 0 spread over a unit range)."""

    def __init__(self, orientation: str, **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        plain_numbers(self)

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803 - pyqtgraph's
        levels = super().tickSpacing(minVal, maxVal, size)
        whole = [(spacing, offset) for spacing, offset in levels if spacing >= 1 and float(spacing).is_integer()]
        return whole or [(1.0, 0.0)]

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803 - pyqtgraph's
        out = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            out.append((spacing, [v for v in values if float(v).is_integer()]))
        return out

    def tickStrings(self, values: list, scale: float, spacing: float) -> list[str]:  # noqa: N802 - pyqtgraph's
        return [f"{round(v * scale):d}" for v in values]
