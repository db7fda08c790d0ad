"""Drives Studio's real main window (xcb, real clicks through the X server) over three runs of different kinds
and prints, as one JSON line, what every analysis view shows after each is selected; run by
tests/gui/test_real_window_run_views.py in a child process:

    python -m tests.gui.run_views_driver WIDTHxHEIGHT [SCREENSHOT_DIR]

(``STUDIO_THEME``: light, the default, or dark.) Three tiny runs are trained in this process first (an MLP on
moons with histograms, a gpt_lm on fortunes, a ViT on Fashion-MNIST), then each is clicked in the run list and
every analysis view is opened by a click on its navigation button: its picker's run, the name it shows, and its
content (Attention's maps are computed by real jobs) are recorded."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from tests.gui.real_window_driver import open_window, settle, shoot, xdotool

QUIET = ["train.trajectory_snapshots=false", "train.epochs=1"]
RUNS = {
    "mlp": ["data.name=moons", "data.n_samples=400", "model.widths=16", "train.batch_size=32",
            "train.histogram_every=4", "train.attention_every=0", *QUIET],
    "gpt_lm": ["model.name=gpt_lm", "data.name=fortunes", "data.tokenizer=char", "data.max_len=12",
               "model.layers=1", "model.heads=2", "model.d_model=16", "model.context=12", "train.batch_size=256",
               "train.attention_every=4", "train.histogram_every=0", *QUIET],
    "vit": ["data.name=fashion_mnist_small", "model.name=vit", "model.d_model=16", "model.depth=1", "model.heads=2",
            "train.batch_size=500", "train.attention_every=6", "train.histogram_every=0", *QUIET],
}
VIEWS = ("histograms", "attention", "landscape", "evaluation", "compression", "compare", "scaling_laws")


def make_runs(store: RunStore) -> dict[str, str]:
    """Train the three runs (in this process) into the store; kind → run id."""
    from tests.unit.test_attention import train

    ids = {}
    for kind, overrides in RUNS.items():
        run = store.create_run(RunConfig().with_overrides(overrides))
        train(run.dir, overrides)
        store.log_metrics(run.id, [(s, "train/loss", 2.0 / s, time.time()) for s in (1, 2, 3)])
        store.set_status(run.id, "finished")
        ids[kind] = run.id
    return ids


def click(widget: Any, at: QPoint | None = None) -> None:
    point = widget.mapToGlobal(at if at is not None else widget.rect().center())
    xdotool("mousemove", point.x(), point.y())
    settle(120)
    xdotool("click", 1)
    settle(350)


def wait(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        QTest.qWait(100)
    return True


def one_run_view(tab: Any) -> dict[str, Any]:
    box = tab.run_box
    return {"run": box.currentData(), "text": box.currentText(), "shown": box.shown_text(),
            "absent": list(box.absent) if box.absent else None}


def look(window: Any, view: str, run_id: str) -> dict[str, Any]:
    """What ``view`` shows now (opened by a click on its navigation button)."""
    click(window.navigation.buttons[view])
    tab = window.pages.tab(view)
    out: dict[str, Any] = {"current": window.tabs.currentWidget() is tab}
    if view in ("compare", "scaling_laws"):
        return {**out, "checked": tab.picker.checked(), "names": tab.picker.names()}
    out.update(one_run_view(tab))
    if view == "histograms":
        out["file_of"] = tab._file().parent.name if tab._file() is not None else None
        out["records"] = len(tab.records)
    elif view == "attention":
        if out["run"]:
            wait(lambda: not tab.busy and tab.result is not None, 90)
        out["maps_of"] = tab.result["run_id"] if tab.result else None
        out["cells"] = sum(len(row) for row in tab.cells)
    elif view == "compression":
        out["title"] = tab.title.text()
    return out


def main(argv: list[str]) -> int:
    size = argv[0]
    shots = Path(argv[1]) if len(argv) > 1 else None
    ids = make_runs(RunStore())
    app, window = open_window(size)
    tag = f"{size}-{os.environ.get('STUDIO_THEME', 'light')}"
    result: dict[str, Any] = {"ids": ids, "names": {}, "steps": []}
    try:
        window.session.runs_changed.emit()
        settle(300)
        for kind, run_id in ids.items():
            click(window.navigation.buttons["training"])
            tree = window.run_list.tree
            item = window.run_list._item_of[run_id]
            click(tree.viewport(), tree.visualItemRect(item).center())
            names = window.run_list.names
            step: dict[str, Any] = {"kind": kind, "selected": window.session.selected_runs(),
                                    "row": item.text(0), "name": names.get(run_id)}
            key = window.curves_pane.curves
            step["key"] = key.key.text() if key is not None else ""
            if shots is not None:
                shoot(window, shots, f"views-{tag}-{kind}-training")
            for view in VIEWS:
                step[view] = look(window, view, run_id)
                if shots is not None:
                    settle(400)  # the last result painted before the screen is grabbed
                    shoot(window, shots, f"views-{tag}-{kind}-{view}")
            result["steps"].append(step)
        result["names"] = dict(window.run_list.names)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
        QApplication.processEvents()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
