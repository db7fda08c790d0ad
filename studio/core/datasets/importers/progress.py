"""Progress and cancellation for long imports: a callback for the GUI/CLI, a flag to stop early."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from studio.core.errors import StudioError

ProgressCallback = Callable[[int, int, str], None]  # (done, total, what is happening); total 0: unknown


class ImportCancelled(StudioError):
    """The person cancelled the import; nothing was written to the cache."""

    def __init__(self, message: str = "the import was cancelled; nothing was saved") -> None:
        super().__init__(message)


class Progress:
    """Reports (done, total, stage) at most every ``interval`` seconds and raises ImportCancelled
    from ``advance``/``check`` once ``cancelled()`` says so."""

    def __init__(self, callback: ProgressCallback | None = None, cancelled: Callable[[], bool] | None = None,
                 interval: float = 0.1) -> None:
        self.callback = callback
        self.cancelled = cancelled or (lambda: False)
        self.interval = interval
        self.done = 0
        self.total = 0
        self.text = ""
        self._last = 0.0

    def stage(self, text: str, total: int = 0) -> None:
        """Start a new stage of ``total`` units (0: unknown)."""
        self.check()
        self.text, self.total, self.done = text, total, 0
        self._report(force=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if time.monotonic() - self._last >= self.interval:
            self.check()
            self._report()

    def check(self) -> None:
        if self.cancelled():
            raise ImportCancelled()

    def _report(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.callback and (force or now - self._last >= self.interval):
            self.callback(self.done, self.total, self.text)
        self._last = now

    def finish(self) -> None:
        self.done = self.total
        self._report(force=True)


def quiet() -> Progress:
    return Progress()


def as_progress(value: Any) -> Progress:
    """Accept a Progress, a bare callback or None."""
    if isinstance(value, Progress):
        return value
    return Progress(value)
