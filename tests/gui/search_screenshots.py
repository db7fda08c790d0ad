"""Pictures of issue 36's views in the real window (xcb): a seed group drawn as its mean and band in the curves,
the Search view over a finished study, and the learning-rate finder on moons (``record`` stores the runs and the
study in ``STUDIO_HOME`` first; nothing trains but the finder's ramp)::

    STUDIO_HOME=/tmp/h STUDIO_THEME=dark xvfb-run -a -s "-screen 0 1280x800x24" \\
        python -m tests.gui.search_screenshots 1280x800 OUT_DIR
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np


def record(home: Path) -> list[str]:
    """A seed group of 5 runs and one run with another rate, with curves; and a finished study."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore
    from tests.gui.search_study import make_study

    store = RunStore(home)
    rng = np.random.default_rng(0)
    steps = np.arange(10, 3001, 10)
    ids = []
    for seed, lr in [(s, 0.01) for s in range(5)] + [(0, 0.1)]:
        run = store.create_run(RunConfig().with_overrides([f"train.seed={seed}", f"optimizer.lr={lr}",
                                                           "data.name=moons"]))
        scale = (1.0 if lr == 0.01 else 0.5) * (1 + 0.3 * rng.normal())  # each seed learns at its own pace
        loss = np.exp(-steps / (600 * scale)) * (1 + rng.normal(0, 0.15, len(steps))) + 0.1 * rng.random()
        acc = np.clip(1 - 0.5 * np.exp(-steps / (500 * scale)) + rng.normal(0, 0.01, len(steps)), 0, 1)
        rows = [(int(s), "train/loss", float(v), 1000.0 + s / 100) for s, v in zip(steps, loss, strict=True)]
        rows += [(int(s), "train/acc", float(v), 1000.0 + s / 100) for s, v in zip(steps, acc, strict=True)]
        rows += [(int(s), "epoch", float(i + 1), 1000.0 + s / 100) for i, s in enumerate(range(300, 3001, 300))]
        store.log_metrics(run.id, rows)
        store.set_status(run.id, "finished", summary={"test_acc": float(acc[-1]), "steps": 3000})
        ids.append(run.id)
    make_study(home, trials=24)
    return ids


def shoot(size: str, out: Path) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from tests.gui.real_window_driver import open_window

    theme = os.environ.get("STUDIO_THEME", "light")
    app, window = open_window(size)
    w, h = map(int, size.split("x"))
    try:
        runs = [r.id for r in window.session.store.list()]
        window.session.set_selection(runs)
        curves = window.curves_pane.curves
        for _ in range(100):
            QTest.qWait(100)
            if not curves.loading and all(r in curves.series for r in runs):
                break
        curves.smooth_box.setValue(0.6)
        QTest.qWait(800)
        out.mkdir(parents=True, exist_ok=True)
        QGuiApplication.primaryScreen().grabWindow(0, 0, 0, w, h).save(str(out / f"seed-band-{size}-{theme}.png"))
        tab = window.pages.tab("Search")
        window.tabs.setCurrentWidget(tab)
        for _ in range(300):  # read on a thread of its own
            QTest.qWait(100)
            if tab.report is not None:
                break
        QTest.qWait(500)
        QGuiApplication.primaryScreen().grabWindow(0, 0, 0, w, h).save(str(out / f"search-{size}-{theme}.png"))
        window.session.set_config(window.session.config.with_overrides(
            ["data.name=moons", "model.widths=64", "optimizer.name=sgd"]))
        finder = tab.page("lr_finder")
        finder.start_lr.setValue(1e-4)
        finder.end_lr.setValue(100.0)
        finder.steps.setValue(150)
        finder.find()
        for _ in range(600):
            QTest.qWait(100)
            if finder.result is not None:
                break
        QTest.qWait(800)
        QGuiApplication.primaryScreen().grabWindow(0, 0, 0, w, h).save(str(out / f"lr-finder-{size}-{theme}.png"))
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
        del app


if __name__ == "__main__":
    if sys.argv[1] == "record":
        print(record(Path(os.environ["STUDIO_HOME"])))
    else:
        shoot(sys.argv[1], Path(sys.argv[2]))
