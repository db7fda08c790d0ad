"""Python's cyclic garbage collected on the window's thread only.

The collector runs in whichever thread happens to allocate when a generation's threshold is crossed. When that is
a worker thread (the curves' loader, the thread that parses a large ``.py`` file, the bridge from the engine's
queue) and the garbage holds a Qt object, the object's C++ destructor runs on that thread, takes the GIL through
shiboken and can deadlock with the window's thread (seen in CI: ``ast.parse`` on the parse thread → ``gc`` →
``QObject::~QObject`` → ``Shiboken::GilState::acquire``, the window's thread waiting on it). So automatic
collection is switched off while a ``MainThreadGC`` lives, and a timer on the window's thread collects with the
interpreter's own thresholds (the recipe PyQt and PySide applications use). Reference counting, which frees
almost everything, is unaffected."""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500  # how often the window's thread looks at the collector's counts


class MainThreadGC(QObject):
    """While it lives (until ``stop``), cyclic garbage is collected only on the thread that made it (the GUI's)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self._threshold = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._timer.start(interval_ms)

    def collect(self) -> None:
        """The collections the interpreter would have made by now, the oldest generation due first."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._threshold[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        """Automatic collection as it was (no full collection here: with a large heap one costs about a second)."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
