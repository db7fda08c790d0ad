"""A pyqtgraph log axis whose labels never pile up (the curves' axes, the Async SGD page's updates axis)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


class LogAxis(pg.AxisItem):
    """A log axis that labels decades only (1, 2, 5 × 10ᵏ when the range is under a decade): pyqtgraph's
    own labels every minor tick and the labels pile on top of each other."""

    def logTickValues(self, minVal: float, maxVal: float, size: float, stdTicks: list) -> list:  # noqa: N802
        lo, hi = int(np.floor(minVal)), int(np.ceil(maxVal))
        decades = [float(k) for k in range(lo, hi + 1) if minVal <= k <= maxVal]
        minor = [k + np.log10(m) for k in range(lo, hi + 1) for m in range(2, 10) if minVal < k + np.log10(m) < maxVal]
        if len(decades) >= 2:
            step = max(1, int(np.ceil(len(decades) / max(size / 40, 1))))
            return [(1.0, decades[::step]), (None, minor)]
        labelled = [k + np.log10(m) for k in range(lo, hi + 1) for m in (1, 2, 5)
                    if minVal <= k + np.log10(m) <= maxVal]
        rest = [v for v in minor if all(abs(v - w) > 1e-9 for w in labelled)]
        return [(1.0, labelled), (None, rest)]

    def logTickStrings(self, values: list, scale: float, spacing: float) -> list[str]:  # noqa: N802
        if spacing is None:
            return [""] * len(values)
        return [f"{10 ** v * scale:.3g}" for v in values]
