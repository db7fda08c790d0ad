"""A newcomer's first session (issue 33): clone Studio into ``studio/``, install it, step back out of the clone and
start ``studio`` there. The working folder then holds a ``studio/`` folder that is not the package; every process
Studio starts (the warm back end, the ranks, the queue's scheduler) must still import the installed Studio, and
Train must train. Driven for real: the ``studio`` program on the xcb platform under Xvfb, Train pressed with a real
key event (xdotool); the run must finish in the run store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gui.test_real_window_layout import xvfb_1024  # noqa: F401 - the fixture

TINY = """[data]
name = "moons"
[model]
name = "mlp"
widths = [16]
[train]
epochs = 2
batch_size = 32
"""


def xdotool(display: str, *args: str) -> str:
    out = subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=10,
                         env={**os.environ, "DISPLAY": display})
    return out.stdout.strip()


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)  # polling the X server and the run store, which have nothing to wait on
    raise AssertionError(f"{what} within {timeout:.0f} s")


@pytest.mark.slow
def test_train_works_started_beside_a_clone_called_studio(xvfb_1024, tmp_path):  # noqa: F811
    where = tmp_path / "projects"
    clone = where / "studio"  # what `git clone … studio` leaves: a folder, no __init__.py, a studio/ inside
    (clone / "studio").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\nname = 'studio'\n")
    (where / "tiny.toml").write_text(TINY)
    home = tmp_path / "home"
    program = Path(sys.executable).with_name("studio")
    command = [str(program)] if program.exists() else [sys.executable, "-m", "studio"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=xvfb_1024, QT_QPA_PLATFORM="xcb", STUDIO_HOME=str(home))
    window = subprocess.Popen([*command, "--new-instance", "tiny.toml"], cwd=where, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wid = wait_for(lambda: xdotool(xvfb_1024, "search", "--name", "^Studio").split("\n")[0], 60,
                       "the window did not appear")
        from studio.core.runs.store import RunStore

        def runs():
            return RunStore(home).list() if (home / "runs.db").exists() else []

        def press_train():
            if not runs():
                xdotool(xvfb_1024, "windowfocus", wid)
                xdotool(xvfb_1024, "key", "--clearmodifiers", "ctrl+Return")
            return runs()

        wait_for(press_train, 60, "Train (Ctrl+Return) did not start a run")
        run = wait_for(lambda: next((r for r in runs() if r.status in ("finished", "failed")), None), 240,
                       "the run did not end")
        assert run.status == "finished", f"the run {run.status}: {run.message}"
    finally:
        window.terminate()
        try:
            window.wait(20)
        except subprocess.TimeoutExpired:
            window.kill()
    assert shutil.which("xdotool")
