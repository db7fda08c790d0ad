"""Train → first curve point in the real window (issue 33): the ``studio`` program on Qt's xcb platform under Xvfb,
Train pressed with a real key (xdotool, Ctrl+Return) as soon as the window shows (the back end still starting:
"cold"), the run stopped (Ctrl+.) once its first point is drawn, then Train again ("warm": the back end has loaded
PyTorch). Idle and beside one CPU hog, ``ROUNDS`` windows each. The app prints every status-bar message and each
run's first point with ``time.monotonic()`` (``STUDIO_STARTUP_REPORT``: gui/app/start.py), so the figures also say
how long each wait the status bar named lasted.

Run: ``python -m pytest tests/benchmarks/test_first_point.py -m benchmark -s`` (or ``python
tests/benchmarks/test_first_point.py``). Absolute times depend on the machine's load: the load average is printed.
"""

from __future__ import annotations

import os
import queue
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks.cpu_hog import cpu_hog
from tests.gui.xvfb_support import xvfb

ROUNDS = 3
LINE = re.compile(r"studio: (?P<t>\d+\.\d+) (?P<what>status: .*|first point of run \S+|run \S+ ended: \w+)$")


class Window:
    """The ``studio`` program on ``display``, its report lines read as they come."""

    def __init__(self, display: str, home: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", STUDIO_HOME=str(home / "store"),
                   XDG_CONFIG_HOME=str(home / "config"), STUDIO_STARTUP_REPORT="1")
        self.display = display
        self.proc = subprocess.Popen([sys.executable, "-m", "studio", "--new-instance"], env=env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 300.0) -> list[tuple[float, str]]:
        """The (time, text) of every stamped line up to the first whose text matches ``pattern``."""
        seen: list[tuple[float, str]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1.0)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            match = LINE.match(line)
            if match is None:
                if re.search(pattern, line):
                    return seen
                continue
            seen.append((float(match["t"]), match["what"]))
            if re.search(pattern, match["what"]):
                return seen
        raise AssertionError(f"no line matching {pattern!r} in {timeout:.0f} s; seen {seen[-5:]}")

    def key(self, chord: str) -> float:
        """Send ``chord`` to the window; the moment it was sent."""
        wid = subprocess.run(["xdotool", "search", "--sync", "--name", "^Studio"], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "DISPLAY": self.display}).stdout.split()[0]
        env = {**os.environ, "DISPLAY": self.display}
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], timeout=10, env=env, capture_output=True)
        sent = time.monotonic()
        subprocess.run(["xdotool", "key", "--clearmodifiers", chord], timeout=10, env=env, check=True)
        return sent

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def train_until_first_point(window: Window) -> dict[str, Any]:
    """Press Train, wait for the first point, stop the run and wait for it to end; seconds and the waits named."""
    for attempt in range(3):  # a key sent while the window is still settling may land nowhere: press again
        pressed = window.key("ctrl+Return")
        try:
            seen = window.wait_for(r"^status: (Starting|Resuming) run", timeout=15)
            break
        except AssertionError:
            if attempt == 2:
                raise
    seen += window.wait_for(r"^first point of run")
    first = seen[-1][0]
    waits = [(text.removeprefix("status: "), t - pressed) for t, text in seen if text.startswith("status: ")]
    window.key("ctrl+period")
    window.wait_for(r"^run \S+ ended: ")
    return {"seconds": first - pressed, "waits": waits}


def measure(rounds: int = ROUNDS) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """{(load, "cold"|"warm"): one entry per window}."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with xvfb("1280x800") as display:
        for load in ("idle", "1 CPU hog"):
            with cpu_hog(load != "idle"):
                for _ in range(rounds):
                    with tempfile.TemporaryDirectory(prefix="studio-first-point-") as home:
                        window = Window(display, Path(home))
                        try:
                            window.wait_for(r"window shown", timeout=120)
                            out.setdefault((load, "cold"), []).append(train_until_first_point(window))
                            out.setdefault((load, "warm"), []).append(train_until_first_point(window))
                        finally:
                            window.close()
    return out


def report(times: dict[tuple[str, str], list[dict[str, Any]]]) -> str:
    lines = [f"load average {' / '.join(f'{v:.1f}' for v in os.getloadavg())} at the end",
             f"{'load':10} {'back end':9} {'median':>8} {'each try':>24}"]
    for (load, how), runs in times.items():
        each = ", ".join(f"{r['seconds']:.2f}" for r in runs)
        lines.append(f"{load:10} {how:9} {statistics.median(r['seconds'] for r in runs):7.2f}s   {each}")
    lines.append("what the status bar said, seconds after Train (first try of each):")
    for (load, how), runs in times.items():
        said = "; ".join(f"{t:.2f} {text}" for text, t in runs[0]["waits"])
        lines.append(f"  {load}, {how}: {said}")
    return "\n".join(lines)


@pytest.mark.benchmark
def test_train_to_first_point_in_the_real_window() -> None:
    times = measure()
    print("\n" + report(times))
    for load in ("idle", "1 CPU hog"):  # every wait named the run's stages before its first point
        for runs in (times[(load, "cold")], times[(load, "warm")]):
            assert all(any("loading the data" in text for text, _ in r["waits"]) for r in runs)


if __name__ == "__main__":
    print(report(measure(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)))
