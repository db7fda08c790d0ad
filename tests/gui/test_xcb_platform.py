"""The real X11 (`xcb`) platform, once: Studio's window opens under Xvfb and quits (CI installs Xvfb and the
xcb libraries so this runs there; offscreen tests cannot catch a missing platform library)."""

import os
import shutil
import subprocess
import sys

import pytest

from studio import platform_check


@pytest.fixture
def xvfb_display():
    if not shutil.which("Xvfb"):
        if os.environ.get("STUDIO_REQUIRE_XCB"):
            pytest.fail("STUDIO_REQUIRE_XCB is set but Xvfb is not installed")
        pytest.skip("Xvfb is not installed")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()  # Xvfb picks a free display and writes its number when ready
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def test_window_opens_on_the_real_xcb_platform(xvfb_display, tmp_path):
    assert platform_check.missing_libraries() == []  # the list of libraries matches what is installed
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb", "STUDIO_HOME": str(tmp_path),
           "STUDIO_STARTUP_REPORT": "quit", "PYTHONPATH": os.getcwd()}
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, "-m", "studio", "--new-instance"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "window shown" in done.stdout and "torch imported: False" in done.stdout
