"""Launch-to-window time of the GUI against ``python -c "import torch"`` and a bare PySide6 window, measured
side by side, idle and with one competing CPU-bound process (``python3 -c 'while True: pass'``).

Run: ``QT_QPA_PLATFORM=offscreen python -m pytest tests/benchmarks/test_startup.py -m benchmark -s``
(or ``python tests/benchmarks/test_startup.py``). The window is timed from the moment the process is started
until it prints that the window is shown (STUDIO_STARTUP_REPORT=quit makes it print and close), so Python's
own start-up and every import count; and until the Training tab's curves are up too (pyqtgraph is imported
just after the window shows, curves_pane.CURVES_AFTER_MS). Beside them, an empty frame shown after only Studio's
entry imports, settings, theme and icon (``FRAME_WINDOW``): the least a two-phase start could show first.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import pytest

from tests.benchmarks.cpu_hog import cpu_hog

ROUNDS = 5
BARE_WINDOW = ("import sys; from PySide6.QtWidgets import QApplication, QMainWindow; app = QApplication(sys.argv);"
               "w = QMainWindow(); w.resize(1280, 800); w.show(); app.processEvents();"
               "print('window shown; torch imported: False', flush=True)")

# the least a two-phase start could show first: Studio's entry imports, the settings, the theme and the icon, then an
# empty QMainWindow (what the window would be before its modules are imported and its parts built)
FRAME_WINDOW = ("import sys, studio.app; from PySide6.QtWidgets import QApplication, QMainWindow; "
                "app = QApplication(sys.argv); from studio.gui.app.settings import SettingsStore; "
                "from studio.gui.session import theme; from studio.gui.app.single_instance import send_to_running; "
                "from studio.core.host.paths import resource; from PySide6.QtGui import QIcon; "
                "theme.apply(SettingsStore().theme, app); icon = QIcon(); "
                "[icon.addFile(str(resource('icons', f'studio-{s}.png'))) for s in (16, 32, 64, 256)]; "
                "app.setWindowIcon(icon); w = QMainWindow(); w.setWindowTitle('Studio'); w.resize(1280, 800); "
                "w.show(); app.processEvents(); print('window shown; torch imported: False', flush=True)")


def times_until_lines(cmd: list[str], markers: tuple[str, ...], env: dict[str, str]) -> list[float]:
    """Seconds from starting ``cmd`` until it prints a line containing each of ``markers``, in order (none: until
    it exits)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    elapsed: list[float] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if len(elapsed) < len(markers) and markers[len(elapsed)] in line:
            elapsed.append(time.perf_counter() - t0)
            assert "torch imported: False" in line, line
            if len(elapsed) == len(markers):
                break
    if not markers:
        proc.wait(timeout=120)
        elapsed.append(time.perf_counter() - t0)
        assert proc.returncode == 0, f"{cmd} failed"
    assert len(elapsed) == max(len(markers), 1), f"{cmd} ended without {markers!r}"
    proc.wait(timeout=120)
    return elapsed


def time_until_line(cmd: list[str], marker: str | None, env: dict[str, str]) -> float:
    """Seconds from starting ``cmd`` until it prints a line containing ``marker`` (or until it exits)."""
    return times_until_lines(cmd, (marker,) if marker else (), env)[0]


def measure(rounds: int = ROUNDS) -> dict[str, list[float]]:
    env = dict(os.environ, STUDIO_STARTUP_REPORT="quit", QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM",
                                                                                         "offscreen"))
    env.setdefault("STUDIO_HOME", tempfile.mkdtemp(prefix="studio-startup-"))
    times: dict[str, list[float]] = {"window": [], "curves": [], "bare": [], "frame": [], "torch": []}
    for _ in range(rounds):  # interleaved, so all see the same machine load
        window, curves = times_until_lines([sys.executable, "-m", "studio", "--new-instance"],
                                           ("window shown", "curves shown"), env)
        times["window"].append(window)
        times["curves"].append(curves)
        times["bare"].append(time_until_line([sys.executable, "-c", BARE_WINDOW], "window shown", env))
        times["frame"].append(time_until_line([sys.executable, "-c", FRAME_WINDOW], "window shown", env))
        times["torch"].append(time_until_line([sys.executable, "-c", "import torch"], None, env))
    return times


def measure_under_hog(rounds: int = ROUNDS) -> dict[str, list[float]]:
    """The same, with one competing ``while True: pass`` process (ended by its pid afterwards)."""
    with cpu_hog():
        return measure(rounds)


def report(times: dict[str, list[float]], label: str = "idle") -> str:
    w, b, t = (statistics.median(times[k]) for k in ("window", "bare", "torch"))
    return (f"[{label}] launch → Studio window shown: median {w:.2f} s (min {min(times['window']):.2f}, "
            f"rounds {len(times['window'])})\n"
            f"[{label}] ... and its curves shown:      median {statistics.median(times['curves']):.2f} s\n"
            f"[{label}] bare PySide6 window shown:      median {b:.2f} s (min {min(times['bare']):.2f}); "
            f"Studio is {w / b:.1f}× the bare window\n"
            f"[{label}] an empty frame after Studio's entry imports, settings, theme and icon: median "
            f"{statistics.median(times['frame']):.2f} s, {statistics.median(times['frame']) / b:.2f}× the bare window\n"
            f'[{label}] python -c "import torch":       median {t:.2f} s; the window appears {t / w:.1f}× sooner')


@pytest.mark.benchmark
def test_window_appears_before_torch_could_load() -> None:
    idle, busy = measure(), measure_under_hog()
    print("\n" + report(idle) + "\n" + report(busy, "one CPU hog"))
    assert statistics.median(idle["window"]) < statistics.median(idle["torch"])
    assert statistics.median(busy["window"]) < 3 * statistics.median(busy["bare"])  # the target


if __name__ == "__main__":
    print(report(measure()) + "\n" + report(measure_under_hog(), "one CPU hog"))
