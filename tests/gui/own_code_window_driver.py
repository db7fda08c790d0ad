"""Drives the real main window (xcb, under Xvfb) with the shipped example model file opened, as a person would:
the Model form shows the file's classes and their arguments; a real click into the ``filters`` field and typed
digits set ``model.args.filters``. Prints what it saw as one JSON line; run by
tests/gui/test_real_window_own_code.py:

    python -m tests.gui.own_code_window_driver WIDTHxHEIGHT [SCREENSHOT_DIR]

(``STUDIO_THEME``: light, the default, or dark.)"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSpinBox, QWidget

from studio.core.host.paths import resource
from studio.gui.app import commands
from tests.gui.real_window_driver import centre, open_window, settle, shoot, xdotool


def inside(widget: QWidget, frame: QWidget) -> bool:
    """Whether ``widget`` lies wholly inside ``frame`` on screen (not cut by its right or bottom edge)."""
    top_left = widget.mapTo(frame, QPoint(0, 0))
    return frame.rect().contains(QRect(top_left, widget.size()))


def main(argv: list[str]) -> int:
    size = argv[0]
    shots = Path(argv[1]) if len(argv) > 1 else None
    tag = f"{size}-{os.environ.get('STUDIO_THEME', 'light')}"
    app, window = open_window(size)
    try:
        commands.open_path(window.shell, str(resource("examples", "my_model.py")))
        settle(300)
        panel = window.settings
        form = panel.forms["model"]
        classes = form.findChild(QComboBox, "model_code_class")
        filters = form.findChild(QSpinBox, "model_arg_filters")
        note = form.findChild(QLabel, "model_code_note")
        path = form.findChild(QLineEdit, "model_code_path")
        panel.ensureWidgetVisible(filters, 20, 60)
        settle(300)
        viewport = panel.viewport()
        seen = {name: inside(w, viewport) for name, w in (("classes", classes), ("filters", filters),
                                                          ("note", note), ("path", path))}
        shoot(window, shots, f"own-code-{tag}-form")
        xdotool("mousemove", *_xy(centre(filters, 0.3)))
        xdotool("click", "--repeat", 3, "--delay", 60, 1)  # select the field's text
        settle(200)
        xdotool("key", "ctrl+a")
        xdotool("type", "--delay", 60, "24")
        xdotool("key", "Tab")
        settle(400)
        shoot(window, shots, f"own-code-{tag}-typed")
        result = {
            "model": window.session.config.model.name,
            "classes": [classes.itemText(i) for i in range(classes.count())],
            "fields_inside": seen, "note": note.text(),
            "note_lines_fit": note.heightForWidth(note.width()) <= note.height() + 2,
            "args": window.session.config.model.params.get("args"),
            "data": window.session.config.data.name,
        }
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
    print(json.dumps(result), flush=True)
    return 0


def _xy(point: QPoint) -> tuple[int, int]:
    return point.x(), point.y()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
