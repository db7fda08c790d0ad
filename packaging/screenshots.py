"""Screenshots of the main window in the light and dark themes and in presentation mode, for the docs.

    xvfb-run -a -s "-screen 0 1400x900x24" python packaging/screenshots.py     # → docs/screenshots/*.png

Three real short runs of the default model (Adam at three learning rates, cosine schedule with warm-up)
are trained into a throw-away run store and overlaid, so the plots show what a person sees after a few runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def seed_runs(store, n_runs: int = 3) -> list[str]:
    """Train a few real short runs of the default model at different learning rates (about a minute)."""
    from studio.core.config import RunConfig
    from studio.engine.training.launcher import launch

    ids = []
    for lr in (1e-3, 3e-3, 1e-2)[:n_runs]:
        cfg = RunConfig().with_overrides([f"optimizer.lr={lr}", "train.epochs=3", "schedule.name=cosine",
                                          "schedule.warmup_steps=50"])
        job = launch(cfg, store, name=f"adam lr {lr:g}")
        if job.wait(timeout=600) != "finished":
            raise SystemExit(f"run {job.run_id} did not finish: {job.state}")
        ids.append(job.run_id)
    return ids


def main() -> int:
    os.environ.setdefault("STUDIO_HOME", tempfile.mkdtemp(prefix="studio-shots-"))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from studio.core.runs.store import RunStore
    from studio.engine.port import engine
    from studio.gui.app.main_window import MainWindow
    from studio.gui.app.settings import SettingsStore
    from studio.gui.session.session import Session

    app = QApplication(sys.argv[:1])
    prefs = SettingsStore(QSettings(os.path.join(os.environ["STUDIO_HOME"], "shots.ini"), QSettings.Format.IniFormat))
    window = MainWindow(Session(RunStore(), engine=engine()), probe_backend=False, prefs=prefs)
    window.resize(1280, 800)
    window.show()
    ids = seed_runs(window.session.store)
    window.session.runs_changed.emit()
    window.session.set_selection(ids)
    OUT.mkdir(parents=True, exist_ok=True)
    shots = []
    for name in ("light", "dark"):
        window.themes.apply(name, save=False)
        for _ in range(10):
            app.processEvents()
        path = OUT / f"window-{name}.png"
        window.grab().save(str(path))
        shots.append(path)
    window.presentation.toggle(True)
    for _ in range(10):
        app.processEvents()
    print(f"presentation: full screen {window.isFullScreen()}, {window.width()}×{window.height()}")
    window.grab().save(str(OUT / "presentation-dark.png"))
    shots.append(OUT / "presentation-dark.png")
    window.presentation.toggle(False)
    window.shell.confirm_close = lambda: True
    window.close()
    print("\n".join(str(p) for p in shots))
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: PySide6 can crash destroying widgets in arbitrary order


if __name__ == "__main__":
    sys.exit(main())
