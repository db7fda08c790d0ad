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
