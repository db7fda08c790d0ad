"""A real X11 display for real-window tests: Xvfb at a chosen size, driven with xdotool (real input events
through the X server, as a person's mouse sends them), Studio on Qt's ``xcb`` platform.

Use the ``xvfb_display`` fixture (1280×800) or ``with xvfb("1024x768") as display:``. Without Xvfb or xdotool
the test is skipped, unless ``STUDIO_REQUIRE_XCB`` is set (CI), where it fails. :func:`run_driver` runs a script
in a child process on that display (the test process itself is on the offscreen platform) and returns its JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REQUIRED = ("Xvfb", "xdotool")


def require_tools(tools: tuple[str, ...] = REQUIRED) -> None:
    """Skip (or fail, under ``STUDIO_REQUIRE_XCB``) when a tool the real-window tests need is missing."""
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        if os.environ.get("STUDIO_REQUIRE_XCB"):
            pytest.fail(f"STUDIO_REQUIRE_XCB is set but {', '.join(missing)} {_is(missing)} not installed")
        pytest.skip(f"{', '.join(missing)} {_is(missing)} not installed")


@contextmanager
def xvfb(size: str = "1280x800", tools: tuple[str, ...] = REQUIRED) -> Iterator[str]:
    """Start Xvfb with one screen of ``size`` (``"WxH"``) on a free display; yield its ``DISPLAY`` (":N")."""
    require_tools(tools)
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()  # Xvfb picks a free display and writes its number when ready
    try:
        if not number:
            raise RuntimeError(f"Xvfb did not start (exit code {server.poll()})")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


@pytest.fixture
def xvfb_display() -> Iterator[str]:
    """A 1280×800 X display (``DISPLAY`` value) for one test."""
    with xvfb("1280x800") as display:
        yield display


def xcb_env(display: str, home: Path, **extra: str) -> dict[str, str]:
    """The environment of a Studio process on ``display``: the real xcb platform, its own STUDIO_HOME."""
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "STUDIO_HOME": str(home),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **extra}
    env.pop("WAYLAND_DISPLAY", None)
    return env


def run_driver(module: str, args: list[str], display: str, home: Path, timeout: float = 60,
               **extra: str) -> dict[str, Any]:
    """Run ``python -m module *args`` on ``display``; it prints one JSON object as its last stdout line."""
    done = subprocess.run([sys.executable, "-m", module, *args], env=xcb_env(display, home, **extra),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{module} {args} failed ({done.returncode}):\n{done.stdout[-2000:]}\n" \
                                 f"{done.stderr[-4000:]}"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"{module} printed no result:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return json.loads(lines[-1])


def xdotool(*args: str | int) -> None:
    """Run one xdotool command on ``$DISPLAY`` (real input: XTEST events through the X server)."""
    subprocess.run(["xdotool", *map(str, args)], check=True, timeout=10)


def _is(names: list[str]) -> str:
    return "is" if len(names) == 1 else "are"
