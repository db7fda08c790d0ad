"""A demo as a reel for recordings (``widgets/reel.py``): a copy of its view, off screen, fed the result to record
(a finished computation, the shipped recording, or the live playground's frames so far), at the recording's size
and style. The copy is never shown; the view on screen is left as it was."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

DemoView = Any  # gui/demos/base.DemoView (its Record… imports this module: a type import back would be a cycle)


class DemoReel:
    """``DemoReel(view_class, params, result, presentation)``; frames and captions are the view's own."""

    def __init__(self, view_class: type[DemoView], params: dict[str, Any], result: dict[str, Any],
                 presentation: bool = True, title: str = "") -> None:
        self.view = view_class(None, recorded=False)
        self.view.short_title = title
        self.view.set_params(params)
        self.view.show_result(result)
        if presentation:
            self.view.set_presentation(True)
        self.widget: QWidget = self.view.graphics
        self.widget.setParent(None)  # a window of its own, never shown: the recording sizes it
        self.rate = float(view_class.rate)

    def count(self) -> int:
        return self.view.frame_count()

    def show(self, index: int) -> None:
        self.view.show_frame(index)

    def caption(self) -> str:
        return self.view.caption.text()

    def close(self) -> None:
        """Let the off-screen copy go now (a headless command: before its application, not at exit)."""
        from PySide6.QtCore import QCoreApplication, QEvent

        self.widget.deleteLater()
        self.view.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def reel_of(view: DemoView, presentation: bool = True) -> DemoReel:
    """A reel of what ``view`` shows now (StudioError in one sentence when it has nothing finished to record)."""
    from studio.gui.widgets.movie_file import MovieError

    result = view.snapshot()
    if result is None:
        raise MovieError("the computation has not finished: wait for it, or Stop it and record the recording")
    return DemoReel(type(view), dict(view.params), result, presentation, view.short_title)
