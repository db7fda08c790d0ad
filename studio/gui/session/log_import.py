"""TensorBoard logs opened or dropped on the window: imported as runs on a thread of their own
(core/runs/tensorboard_import.py), so the window stays live; ``done`` carries the report, ``failed`` one sentence."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.core.errors import StudioError


class LogImporter(QObject):
    done = Signal(object)  # ImportReport
    failed = Signal(str)

    def __init__(self, home: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.home = home
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, logdir: str) -> None:
        self._thread = threading.Thread(target=self._run, args=(logdir,), name="studio-log-import", daemon=True)
        self._thread.start()

    def _run(self, logdir: str) -> None:
        from studio.core.runs.store import RunStore
        from studio.core.runs.tensorboard_import import import_logs

        store: Any = None
        try:
            store = RunStore(self.home)
            self.done.emit(import_logs(logdir, store))
        except StudioError as err:
            self.failed.emit(str(err))
        except Exception as err:  # noqa: BLE001 - a log no reader expected: said, not a crashed window
            self.failed.emit(f"{type(err).__name__}: {err}")
        finally:
            if store is not None:
                store.close()
