"""Issue 33 (items 5 and 6) in a real window: Studio's main window on the xcb platform under Xvfb, driven with real
input (xdotool through the X server); prints what it measured as one JSON line. Run by
tests/gui/test_real_window_first_hour.py in a child process:

    python -m tests.gui.first_hour_driver note WIDTHxHEIGHT [SCREENSHOT_DIR]

(``STUDIO_THEME``: light, the default, or dark.)

``note``: the settings panel scrolled down to the batch size with the yellow note showing (far above, out of view);
a real edit of the batch size makes the note go. Where the fields are on the screen before and after, and where a
click aimed at the seed field before the edit lands.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QSpinBox, QWidget

from studio.gui.app.main_window import MainWindow
from tests.gui.real_window_driver import centre, open_window, point_at, settle, shoot, xdotool


def on_screen(widget: QWidget) -> list[int]:
    """The widget's rectangle on the screen: x, y, width, height."""
    top = widget.mapToGlobal(QPoint(0, 0))
    return [top.x(), top.y(), widget.width(), widget.height()]


def note(window: MainWindow, shots: Path | None, tag: str) -> dict[str, Any]:
    panel = window.settings
    bar = panel.verticalScrollBar()
    batch, seed = panel.train_form.widgets["batch_size"], panel.train_form.widgets["seed"]
    assert isinstance(batch, QSpinBox) and isinstance(seed, QSpinBox)
    batch.setValue(20_000)  # one step per epoch on the bundled data: the note says so
    settle(300)
    panel.ensureWidgetVisible(seed, 20, 60)
    settle(300)
    shown = panel.warnings.isVisible()
    before = {"batch": on_screen(batch), "seed": on_screen(seed), "scroll": bar.value(),
              "note_height": panel.warnings.height(), "note_shown": shown,
              "note_bottom_in_panel": panel.warnings.mapTo(panel, QPoint(0, panel.warnings.height())).y()}
    aim = centre(seed, 0.3)  # where the next click is aimed: the seed field, as it is on screen now
    shoot(window, shots, f"note-{tag}-before")
    point_at(centre(batch, 0.3))
    xdotool("click", 1)  # a real edit: click into the batch size, select it, type 64
    settle(200)
    xdotool("key", "ctrl+a")
    xdotool("type", "--delay", "60", "64")
    settle(500)
    after = {"batch": on_screen(batch), "seed": on_screen(seed), "scroll": bar.value(),
             "note_shown": panel.warnings.isVisible(), "batch_size": window.session.config.train.batch_size}
    shoot(window, shots, f"note-{tag}-after")
    point_at(aim)
    under = QApplication.widgetAt(aim)
    xdotool("click", 1)
    settle(300)
    return {"before": before, "after": after, "pointer_on_seed": under is seed or seed.isAncestorOf(under),
            "seed_focused": seed.hasFocus() or seed.isAncestorOf(QApplication.focusWidget())}


def main(argv: list[str]) -> int:
    what, size = argv[0], argv[1]
    shots = Path(argv[2]) if len(argv) > 2 else None
    _app, window = open_window(size)
    try:
        tag = f"{size}-{os.environ.get('STUDIO_THEME', 'light')}"
        result = {"note": note}[what](window, shots, tag)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
