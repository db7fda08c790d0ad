"""Click → first landscape preview: the default 2-D surface (41×41, 2,000 samples) of the default run,
through the real job (``LandscapeJob``, what the Landscape tab starts), from ``start()`` to the first drawn
frame (the coarse 11×11 preview). Side by side, interleaved, idle and beside one competing CPU-bound program:

- before: the child spawned cold (imports torch itself), preview on all 2,000 samples;
- warm, preview on all 2,000 samples (forked from the warm back end);
- after: warm, preview on ``PREVIEW_SAMPLES`` (500) samples — what the tab does now.

Each line also splits the time: until the child's first message (the process is up, before it imports the
landscape code), until the grid starts (imports — torch itself when cold —, loading the run, the model and
the data), the preview itself. The issue's target: ≤ 3 s.

Run: ``python -m pytest tests/benchmarks/test_landscape_preview.py -m benchmark -s``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from studio.core.contracts import protocol
from studio.core.contracts.landscape import LandscapeJobRequest, LandscapeRequest
from studio.engine.jobs import backend
from studio.engine.tasks.landscape_job import LandscapeJob
from tests.benchmarks.cpu_hog import cpu_hog

ROUNDS = 3
OPTIONS = {"kind": "2d", "resolution": 41, "samples": 2000, "checkpoint": "final"}
VARIANTS = {
    "before: cold, 2000-sample preview": (False, {"preview_samples": 0}),
    "warm, 2000-sample preview": (True, {"preview_samples": 0}),
    "after: warm, 500-sample preview": (True, {}),
}


def default_run() -> Path:
    """Train the default run (``studio train``) in a fresh store; its directory."""
    home = tempfile.mkdtemp(prefix="studio-bench-")
    os.environ["STUDIO_HOME"] = home
    out = subprocess.run([sys.executable, "-m", "studio", "train", "--json", "--quiet"], capture_output=True,
                         text=True, env=dict(os.environ), timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return next((Path(home) / "runs").iterdir())


def first_preview(run_dir: Path, extra: dict) -> tuple[float, float, float]:
    """Seconds from start() to (the child's first message, the grid's start, the preview frame)."""
    job = LandscapeJob(LandscapeJobRequest(str(run_dir), LandscapeRequest(**{**OPTIONS, **extra})))
    t0 = time.perf_counter()
    job.start()
    first = grid = 0.0
    try:
        while not job.finished:
            for m in job.poll(timeout=0.02):
                now = time.perf_counter() - t0
                first = first or now
                if m["type"] == protocol.PROGRESS and "grid" in str(m.get("text", "")):
                    grid = grid or now
                if m["type"] == protocol.FRAME and m["data"]["stage"] == "preview":
                    return first, grid or now, now
        raise AssertionError(f"the landscape ended ({job.state}: {job.error}) before its preview")
    finally:
        job.cancel()
        job.wait(60)


def measure(run_dir: Path, rounds: int = ROUNDS) -> dict[tuple[str, str], list[tuple[float, float, float]]]:
    backend.start_warm()
    first_preview(run_dir, {})  # the server has imported torch (in the app: while the person looks at the window)
    times: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for load in ("idle", "1 CPU hog"):
        with cpu_hog(load != "idle"):
            for _ in range(rounds):
                for name, (warm, extra) in VARIANTS.items():
                    backend.start_warm() if warm else backend.stop_warm()
                    times.setdefault((name, load), []).append(first_preview(run_dir, extra))
    backend.stop_warm()
    return times


def report(times: dict[tuple[str, str], list[tuple[float, float, float]]]) -> str:
    lines = [f"first preview of the default 2-D landscape, medians of {ROUNDS}, load average "
             f"{os.getloadavg()[0]:.1f} at the end",
             f"{'':36} {'load':10} {'preview':>8} {'= child up':>10} {'+ loading':>9} {'+ preview':>9}"]
    for load in ("idle", "1 CPU hog"):
        for name in VARIANTS:
            first, grid, preview = (statistics.median(t[i] for t in times[(name, load)]) for i in range(3))
            lines.append(f"{name:36} {load:10} {preview:7.2f}s {first:9.2f}s {grid - first:8.2f}s "
                         f"{preview - grid:8.2f}s")
    return "\n".join(lines)


@pytest.mark.benchmark
def test_the_first_landscape_preview_comes_sooner_warm_and_on_fewer_samples() -> None:
    times = measure(default_run())
    print("\n" + report(times))
    for load in ("idle", "1 CPU hog"):
        before = statistics.median(t[2] for t in times[("before: cold, 2000-sample preview", load)])
        after = statistics.median(t[2] for t in times[("after: warm, 500-sample preview", load)])
        assert after < before


if __name__ == "__main__":
    print(report(measure(default_run())))
