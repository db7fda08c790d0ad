"""Screenshots of every demo in presentation mode (``python packaging/demo_screenshots.py [OUT_DIR]`` gives
:func:`take` the engine).

Runs each demo with its default settings as a background job, shows its last frame (the race: step
40) and saves
``OUT_DIR/demo_<name>.png`` (default docs/screenshots). Works under ``QT_QPA_PLATFORM=offscreen`` or Xvfb.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from studio.core.contracts.engine_port import EnginePort

FRAME = {"optimizer_race": 40}  # a frame mid-race shows the paths apart; the others show their last frame
ENDLESS_S = 8.0  # a live demo that runs until stopped (the playground) is pictured after this long


def take(engine: EnginePort, out_dir: Path, names: list[str] | None = None, size: tuple[int, int] = (1920, 1080),
         timeout_s: float = 600.0) -> list[Path]:
    """Picture each demo (all by default) with the jobs ``engine`` makes; the saved PNGs."""
    from PySide6.QtWidgets import QApplication

    from studio.core.vocab import JobState
    from studio.gui.demos.lab import VIEWS, TeachingLab
    from studio.gui.session.session import Session

    app = QApplication.instance() or QApplication([sys.argv[0]])
    out_dir.mkdir(parents=True, exist_ok=True)
    session = Session(engine=engine)
    session.warm_up()
    lab = TeachingLab(session)
    lab.resize(*size)
    lab.show()
    lab.set_presentation(True)
    saved = []
    try:
        for name in names or list(VIEWS):
            view = lab.open(name)
            view.compute()
            endless = getattr(view, "endless", False)  # the playground trains until stopped: a picture after 8 s
            deadline = time.monotonic() + (ENDLESS_S if endless else timeout_s)
            while view.busy and time.monotonic() < deadline:
                app.processEvents()
                time.sleep(0.02)
            if endless:
                view.stop()
                while view.busy:
                    app.processEvents()
                    time.sleep(0.02)
            elif view.task.state != JobState.FINISHED:
                raise RuntimeError(f"{name}: {view.task.state} {view.error_text}")
            if not endless:
                view.player.pause()
                view.player.seek(FRAME.get(name, view.frame_count() - 1))
            for _ in range(5):
                app.processEvents()
            path = out_dir / f"demo_{name}.png"
            lab.grab().save(str(path))
            saved.append(path)
            print(f"{path}: {view.caption.text()}", flush=True)
    finally:
        session.shutdown(wait_s=5)
    return saved
