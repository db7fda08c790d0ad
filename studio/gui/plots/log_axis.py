"""A pyqtgraph log axis whose labels never pile up (the curves' axes, the Async SGD page's updates axis), and whose
title is cut to its length ("perplexity (next t…"), the whole in its tooltip: a vertical title longer than its
plot ran into the title of the plot above (issue 33.6: "perplexity (next token)learning rate (log)")."""

from __future__ import annotations

from typing import Any

import numpy as np

from studio.gui.plots.pixmap_axis import PixmapAxis


class LogAxis(PixmapAxis):
    """A log axis that labels decades only (1, 2, 5 × 10ᵏ when the range is under a decade): pyqtgraph's
    own labels every minor tick and the labels pile on top of each other. Its title never runs past its length.
    Painted from a pixmap on screen (pixmap_axis.py)."""

    whole = False  # counts whole things (steps, samples): ticks at integers only, never 9.6 … 10.4 around step 10

    def set_whole(self, on: bool) -> None:
        """Ticks at integers only (on a linear axis)."""
        if self.whole != on:
            self.whole = on
            self.picture = None
            self.update()

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803 - pyqtgraph's
        levels = super().tickSpacing(minVal, maxVal, size)
        if not self.whole or self.logMode:
            return levels
        whole = [(spacing, offset) for spacing, offset in levels if spacing >= 1]
        return whole or [(1.0, 0.0)]

    def resizeEvent(self, ev: Any = None) -> None:  # noqa: N802 - pyqtgraph's name
        self.fit_label()
        super().resizeEvent(ev)

    def _updateLabel(self) -> None:  # noqa: N802 - pyqtgraph's name
        super()._updateLabel()
        self.fit_label()

    def fit_label(self) -> None:
        """Cut the title to the axis's length ("…"), the whole title its tooltip; uncut when it fits."""
        label = getattr(self, "label", None)
        if label is None or not self.labelText:
            return
        room = (self.size().height() if self.orientation in ("left", "right") else self.size().width()) - 4
        full = self.labelString()
        label.setHtml(full)
        self.setToolTip("")
        if room <= 0 or label.boundingRect().width() <= room:
            return
        text = self.labelText
        keep = max(1, int(len(text) * room / label.boundingRect().width()))
        while keep > 1:  # pyqtgraph puts the title into its html as it is
            label.setHtml(full.replace(text, text[:keep].rstrip() + "…", 1))
            if label.boundingRect().width() <= room:
                break
            keep -= 1
        self.setToolTip(text)

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
