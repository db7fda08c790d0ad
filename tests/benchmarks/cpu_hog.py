"""One competing CPU-bound program for the benchmarks (``python3 -c 'while True: pass'``)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def cpu_hog(on: bool = True) -> Iterator[None]:
    """Run the block with one busy-looping process beside it (or alone, ``on=False``)."""
    if not on:
        yield
        return
    proc = subprocess.Popen([sys.executable, "-c", "print('spinning', flush=True)\nwhile True: pass"],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "spinning\n"  # it runs before the measurement
    try:
        yield
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
