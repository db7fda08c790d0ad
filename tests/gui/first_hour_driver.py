"""Issue 33 (items 5 and 6) in a real window: Studio's main window on the xcb platform under Xvfb, driven with real
input (xdotool through the X server); prints what it measured as one JSON line. Run by
tests/gui/test_real_window_first_hour.py in a child process:

    python -m tests.gui.first_hour_driver note|plots WIDTHxHEIGHT [SCREENSHOT_DIR]

(``STUDIO_THEME``: light, the default, or dark.)

``note``: the settings panel scrolled down to the batch size with the yellow note showing (far above, out of view);
a real edit of the batch size makes the note go. Where the fields are on the screen before and after, and where a
click aimed at the seed field before the edit lands.
``plots``: a language-model run in the run store (loss, accuracy, learning rate, throughput and perplexity, and the
Generate box under the run list) selected with a real click on its row: each plot's height, its axis labels'
rectangles, the plots' scroll range; then the read-out under the pointer moved over the loss plot.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtWidgets import QApplication, QSpinBox, QTreeWidgetItemIterator, QWidget

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
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


def language_model_run(store: RunStore, steps: int = 600) -> str:
    """A finished gpt_lm run with what a language model logs: loss, accuracy and perplexity per step and per epoch,
    the learning rate (a warm-up) and the throughput."""
    config = RunConfig().with_overrides(["data.name=fortunes", "model.name=gpt_lm", "train.batch_size=16"])
    run = store.create_run(config, name="gpt on fortunes")
    rows = []
    for step in range(10, steps + 1, 10):
        loss, wall = 1.6 + 2.6 * math.exp(-step / 150), 1000.0 + 0.05 * step
        rows += [(step, "train/loss", loss, wall), (step, "train/perplexity", math.exp(loss), wall),
                 (step, "train/acc", 0.2 + 0.3 * (1 - math.exp(-step / 200)), wall),
                 (step, "lr", 3e-4 * min(1.0, step / 100), wall), (step, "throughput", 800.0 + step % 37, wall)]
    for epoch, step in enumerate(range(200, steps + 1, 200), 1):
        loss, wall = 1.7 + 2.5 * math.exp(-step / 150), 1000.0 + 0.05 * step
        rows += [(step, "val/loss", loss, wall), (step, "val/perplexity", math.exp(loss), wall),
                 (step, "val/acc", 0.2 + 0.3 * (1 - math.exp(-step / 200)), wall), (step, "epoch", epoch, wall)]
    store.log_metrics(run.id, rows)
    store.set_status(run.id, "finished")
    return run.id


def label_rects(window: MainWindow) -> dict[str, list[list[float]]]:
    """Each plot's left and bottom axis labels as rectangles in the plots' scene (x, y, w, h)."""
    out = {}
    for key, plot in window.curves_pane.curves.plots.items():
        rects = []
        for side in ("left", "bottom"):
            label = plot.getAxis(side).label
            r = label.mapRectToScene(label.boundingRect())
            rects.append([r.x(), r.y(), r.width(), r.height()])
        out[key] = rects
    return out


def row_of(window: MainWindow, run_id: str) -> QPoint:
    """The centre of the run's row in the run list, on the screen."""
    tree = window.run_list.tree
    found = QTreeWidgetItemIterator(tree)
    while found.value() is not None:
        item = found.value()
        if window.run_list._id(item) == run_id:  # noqa: SLF001 - the run list's own reading of a row
            rect = tree.visualItemRect(item)
            return tree.viewport().mapToGlobal(rect.center())
        found += 1
    raise AssertionError(f"{run_id} is not in the run list")


def plots(window: MainWindow, shots: Path | None, tag: str) -> dict[str, Any]:
    curves = window.curves_pane.curves
    run_id = language_model_run(window.session.store)
    window.run_list.refresh()
    settle(300)
    point_at(row_of(window, run_id))
    xdotool("click", 1)  # selected as a person selects it: the curves load, the Generate box shows
    settle(300)
    curves.wait_drawn(30)
    settle(600)
    shoot(window, shots, f"plots-{tag}")
    scroll = curves.plot_scroll.verticalScrollBar()
    out: dict[str, Any] = {
        "selected": window.session.selected_runs(), "plots": list(curves.plots),
        "view_heights": {k: p.getViewBox().sceneBoundingRect().height() for k, p in curves.plots.items()},
        "plot_heights": {k: p.sceneBoundingRect().height() for k, p in curves.plots.items()},
        "min_height": curves.grid.style.min_height, "labels": label_rects(window),
        "scroll_range": scroll.maximum(), "generate_shown": window.generate_box.isVisible(),
        "viewport_height": curves.plot_scroll.viewport().height()}
    loss = curves.plots["loss"].getViewBox()
    at = QPointF(loss.mapViewToScene(QPointF(300.0, 2.0)))  # step 300, in the loss plot
    point_at(curves.graphics.viewport().mapToGlobal(curves.graphics.mapFromScene(at)))
    settle(300)
    box = curves.readout.box
    out["readout"] = {"shown": box.isVisible(), "text": box.text(), "key": curves.readout.key,
                      "values": [[r.metric, r.x, r.value] for r in curves.readout.readings],
                      "box": [box.x(), box.y(), box.width(), box.height()]}
    shoot(window, shots, f"plots-{tag}-readout")
    point_at(QPoint(5, 5))
    scroll.setValue(scroll.maximum())
    settle(400)
    shoot(window, shots, f"plots-{tag}-scrolled")
    return out


def main(argv: list[str]) -> int:
    what, size = argv[0], argv[1]
    shots = Path(argv[2]) if len(argv) > 2 else None
    _app, window = open_window(size)
    try:
        tag = f"{size}-{os.environ.get('STUDIO_THEME', 'light')}"
        result = {"note": note, "plots": plots}[what](window, shots, tag)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
