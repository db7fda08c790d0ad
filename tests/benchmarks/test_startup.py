"""Launch-to-window time of the GUI against ``python -c "import torch"``, measured side by side.

Run: ``QT_QPA_PLATFORM=offscreen python -m pytest tests/benchmarks/test_startup.py -m benchmark -s``
(or ``python tests/benchmarks/test_startup.py``). The window is timed from the moment the process is started
until it prints that the window is shown (STUDIO_STARTUP_REPORT=quit makes it print and close), so Python's
own start-up and every import count.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import pytest

ROUNDS = 5


def time_until_line(cmd: list[str], marker: str | None, env: dict[str, str]) -> float:
    """Seconds from starting ``cmd`` until it prints a line containing ``marker`` (or until it exits)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    elapsed = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if marker and marker in line:
            elapsed = time.perf_counter() - t0
            assert "torch imported: False" in line, line
            break
    if elapsed is None:
        proc.wait(timeout=120)
        elapsed = time.perf_counter() - t0
        assert proc.returncode == 0 and not marker, f"{cmd} ended without {marker!r}"
    proc.wait(timeout=120)
    return elapsed


def measure(rounds: int = ROUNDS) -> dict[str, list[float]]:
    env = dict(os.environ, STUDIO_STARTUP_REPORT="quit", QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM",
                                                                                         "offscreen"))
    env.setdefault("STUDIO_HOME", tempfile.mkdtemp(prefix="studio-startup-"))
    times: dict[str, list[float]] = {"window": [], "torch": []}
    for _ in range(rounds):  # interleaved, so both see the same machine load
        times["window"].append(time_until_line([sys.executable, "-m", "studio", "--new-instance"],
                                               "window shown", env))
        times["torch"].append(time_until_line([sys.executable, "-c", "import torch"], None, env))
    return times


def report(times: dict[str, list[float]]) -> str:
    w, t = statistics.median(times["window"]), statistics.median(times["torch"])
    return (f"launch → window shown: median {w:.2f} s (min {min(times['window']):.2f}, rounds {len(times['window'])})\n"
            f'python -c "import torch":  median {t:.2f} s (min {min(times["torch"]):.2f})\n'
            f"the window appears {t / w:.1f}× sooner than torch alone imports")


@pytest.mark.benchmark
def test_window_appears_before_torch_could_load() -> None:
    times = measure()
    print("\n" + report(times))
    assert statistics.median(times["window"]) < statistics.median(times["torch"])


if __name__ == "__main__":
    print(report(measure()))
