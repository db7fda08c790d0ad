"""A landscape as a reel for recordings (``widgets/reel.py``): its contour heat map in an off-screen copy, the
optimizer's path (a trajectory landscape's checkpoints on the PCA plane) drawn one point further each frame; a
landscape without a path is one frame. The view on screen is left as it was."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from studio.core.vocab import LandscapeKind
from studio.gui.plots.landscape_view import HeatMap

RECORDABLE = (LandscapeKind.SURFACE.value, LandscapeKind.TRAJECTORY.value)
LINE_REFUSAL = "a 1-D landscape is a curve, not a picture to animate"



class TrajectoryReel:
    rate = 4.0

    def __init__(self, result: Any, log: bool) -> None:
        self.result, self.log = result, log
        self.path = result.path if result.path is not None and len(result.path) else None
        self.heatmap = HeatMap()
        self.widget: QWidget = self.heatmap
        ev = result.meta.get("explained_variance") or [0.0, 0.0]
        self.labels = ((f"PC 1 ({100 * ev[0]:.1f}% of the variance)", f"PC 2 ({100 * ev[1]:.1f}%)")
                       if self.path is not None else ("direction 1", "direction 2"))
        self.shown = 0

    def count(self) -> int:
        return len(self.path) if self.path is not None else 1

    def show(self, index: int) -> None:
        self.shown = index + 1
        path = self.path[: index + 1] if self.path is not None else None
        r = self.result
        self.heatmap.draw(r.x, r.y, r.loss, path, self.log, self.labels)

    def caption(self) -> str:
        where = str(self.result.meta.get("checkpoint", ""))
        if self.path is None:
            return f"The loss around {where}" if where else "The loss landscape"
        return f"The optimizer's path on the loss landscape: checkpoint {self.shown} of {len(self.path)}"
