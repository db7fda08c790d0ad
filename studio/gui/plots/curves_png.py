"""Runs' curves as a PNG image: the app's own curves view, rendered off screen (``studio export --png`` and
the Evaluation tab's export buttons)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SIZE = (1200, 800)


def render_curves_png(store: Any, run_ids: list[str], path: str | Path, size: tuple[int, int] = SIZE) -> int:
    """Draw the runs' metrics as the Curves view does and save them to ``path``; returns the file's bytes.
    Needs a QApplication (``ensure_app`` makes an off-screen one for the CLI)."""
    from studio.core.errors import DataError
    from studio.gui.plots.curves import CurvesView

    data = {rid: store.metrics(rid) for rid in run_ids}
    if not any(data.values()):
        raise DataError("the run has no logged metrics to draw yet")
    view = CurvesView()
    view.resize(*size)
    view.show_runs(data, {rid: store.get(rid).name or rid for rid in run_ids})
    view.wait_drawn()  # long runs are prepared on the curve loader's thread
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QApplication

    layout = view.layout()  # CurvesView lays itself out in a QVBoxLayout
    if layout is not None:
        layout.activate()
    top = view.key.geometry().top()  # the image is the colour key and the plots, not the controls above them
    view.resize(size[0], size[1] + top)
    if layout is not None:
        layout.activate()
    area = QRect(0, top, size[0], size[1])
    for _ in range(2):  # a first paint measures the tick labels; the axes widen to fit them before the second
        view.grab(area)
        QApplication.processEvents()
    from studio.core.host.outfiles import writing

    path = Path(path)
    with writing(path) as tmp:
        tmp.write_bytes(b"")  # an unwritable folder is an OSError here, in words, not Qt's False
        if not view.grab(area).save(str(tmp), "PNG"):
            raise DataError(f"cannot write {path}")
    view.timer.stop()
    view.deleteLater()
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # gone now, not at interpreter exit
    return path.stat().st_size


def ensure_app() -> Any:
    """The running QApplication, or a new off-screen one on a light background (headless export)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        import pyqtgraph as pg

        app = QApplication(["studio", "-platform", "offscreen"])
        pg.setConfigOptions(background="w", foreground="k", antialias=True)
    return app
