"""A stand-in for a long import, run as an ImportJob in tests: it holds a staging folder in the cache
and reports progress until it is cancelled (or, with ``ignore_cancel``, until it is killed)."""

from __future__ import annotations

import time

from studio.core.datasets import cache


def run(progress, seconds: float = 60.0, ignore_cancel: bool = False) -> dict:
    with cache.staging() as stage:
        (stage / "half_written.npy").write_bytes(b"\x93NUMPY partial")
        progress.stage("decoding pretend images", 1000)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(0.02)  # pretend decoding, in slices that can be cancelled
            if ignore_cancel:
                progress.callback(progress.report())
            else:
                progress.advance()
    return {"name": "never"}
