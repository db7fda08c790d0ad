"""Functions the job tests run in child processes (importable by module path)."""

from __future__ import annotations

import os
import signal
import sys
import time

from studio.core.errors import DataError


def count(progress, n: int = 20, pause: float = 0.02) -> dict:
    for i in range(n):
        time.sleep(pause)
        progress((i + 1) / n, f"step {i + 1}/{n}")
    return {"counted": n, "pid": os.getpid()}


def forever(progress, ignore_cancel: bool = False) -> None:
    while True:
        time.sleep(0.02)
        if ignore_cancel:  # reports without ever checking the cancel flag
            progress.fraction = 0.5
            progress.callback(progress.report())
        else:
            progress(0.5, "working")


def bad_input(progress) -> None:
    raise DataError("the file has no labels; name the label column")


def bug(progress) -> None:
    return {}["missing"]


def crash(progress, how: str = "kill") -> None:
    progress(0.1, "about to crash")
    time.sleep(0.2)
    if how == "segfault":
        import ctypes

        ctypes.string_at(0)
    os.kill(os.getpid(), signal.SIGKILL)


def warm_check(progress) -> dict:
    """Whether torch was already imported when the child started (the warm back end preloads it)."""
    return {"torch_preloaded": "torch" in sys.modules, "pid": os.getpid()}
