"""One process trains a run at a time: an OS lock (``flock``; ``msvcrt.locking`` on Windows) on the run folder's
lock file, held by the process that resumes the run for as long as it trains. The kernel drops it when that
process ends, however it ends (``kill -9`` included), so a lock is never left behind by a dead process."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from studio.core.contracts import layout


class RunLock:
    """``acquire()`` without waiting: False when another process holds the run."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = layout.lock_path(run_dir)
        self._file: IO[bytes] | None = None

    def acquire(self) -> bool:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            file = open(self.path, "a+b")  # noqa: SIM115 - held open while the lock is held
        except OSError:
            return True  # a folder we cannot write: nothing to lock (the store refuses writes itself)
        try:
            _lock(file)
        except OSError:
            file.close()
            return False
        self._file = file
        return True

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the lock
            self._file = None

    def held_elsewhere(self) -> bool:
        """Whether another process holds the run now (tries the lock and gives it back at once)."""
        if self._file is not None or not self.path.exists():
            return False
        if self.acquire():
            self.release()
            return False
        return True


def _lock(file: IO[bytes]) -> None:
    if os.name == "nt":
        import msvcrt

        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
