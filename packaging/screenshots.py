"""Screenshots of the main window in the light and dark themes and in presentation mode, for the docs.

    xvfb-run -a -s "-screen 0 1400x900x24" python packaging/screenshots.py     # → docs/screenshots/*.png

Three runs with made-up but plausible curves are put in a throw-away run store and overlaid, so the
plots show what a person sees after a few runs.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def seed_runs(store, n_runs: int = 3) -> list[str]:
    from studio.core.config import RunConfig

    ids = []
    for k in range(n_runs):
        run = store.create_run(RunConfig(), name=f"lr {[1e-3, 3e-3, 1e-2][k]:g}")
        rows = []
        for step in range(1, 601):
            loss = 0.35 + (2.3 - 0.35) * math.exp(-step / (60 + 40 * k)) + 0.05 * math.sin(step * (0.7 + k))
            lr = 1e-3 * (k + 1) * min(1.0, step / 50) * 0.5 * (1 + math.cos(math.pi * step / 600)) + 1e-6
            rows += [(step, "train/loss", loss, 0.0), (step, "train/acc", 1 - loss / 2.6, 0.0),
                     (step, "lr", lr, 0.0), (step, "throughput", 9000 + 800 * math.sin(step / 30) - 500 * k, 0.0)]
            if step % 100 == 0:
                rows += [(step, "val/loss", loss + 0.05 * k + 0.04, 0.0), (step, "val/acc", 1 - loss / 2.4, 0.0)]
        store.log_metrics(run.id, rows)
        store.set_status(run.id, "finished", summary={"test_acc": 0.8 + 0.02 * k, "val_acc": 0.79 + 0.02 * k,
                                                       "steps": 600})
        ids.append(run.id)
    return ids


def main() -> int:
    os.environ.setdefault("STUDIO_HOME", tempfile.mkdtemp(prefix="studio-shots-"))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from studio.core.runs import RunStore
    from studio.gui.main_window import MainWindow
    from studio.gui.session import Session
    from studio.gui.settings_store import SettingsStore

    app = QApplication(sys.argv[:1])
    prefs = SettingsStore(QSettings(os.path.join(os.environ["STUDIO_HOME"], "shots.ini"), QSettings.Format.IniFormat))
    window = MainWindow(Session(RunStore()), probe_backend=False, prefs=prefs)
    window.resize(1280, 800)
    window.show()
    ids = seed_runs(window.session.store)
    window.session.runs_changed.emit()
    window.session.set_selection(ids)
    window.backend_label.setText("Back end ready: PyTorch (screenshot)")
    OUT.mkdir(parents=True, exist_ok=True)
    shots = []
    for name in ("light", "dark"):
        window.apply_theme(name, save=False)
        for _ in range(10):
            app.processEvents()
        path = OUT / f"window-{name}.png"
        window.grab().save(str(path))
        shots.append(path)
    window.toggle_presentation(True)
    for _ in range(10):
        app.processEvents()
    print(f"presentation: full screen {window.isFullScreen()}, {window.width()}×{window.height()}")
    window.grab().save(str(OUT / "presentation-dark.png"))
    shots.append(OUT / "presentation-dark.png")
    window.toggle_presentation(False)
    window.confirm_close = lambda: True
    window.close()
    print("\n".join(str(p) for p in shots))
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: PySide6 can crash destroying widgets in arbitrary order


if __name__ == "__main__":
    sys.exit(main())
