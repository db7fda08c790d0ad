"""One competing CPU-bound program for the benchmarks (``python3 -c 'while True: pass'``)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator


@contextlib.contextmanager
def cpu_hog(on: bool = True) -> Iterator[None]:
    """Run the block with one busy-looping process beside it (or alone, ``on=False``)."""
    if not on:
        yield
        return
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.5)  # it is running before the measurement starts
    try:
        yield
    finally:
        proc.kill()
        proc.wait()
