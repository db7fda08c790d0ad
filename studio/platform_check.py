"""Before Qt starts: is there a display, and are the system libraries Qt's X11 (``xcb``) platform needs there?

Without them Qt aborts (exit 134) with a message that names only one library (``xcb-cursor0``), whatever is
missing. Here each library is tried with ``ctypes`` (cheap: Qt loads the same files a moment later) and a missing
one is reported in one line with the packages to install. The list is what PySide6 6.11's ``libqxcb.so`` /
``libQt6XcbQpa.so.6`` link against (``ldd``), less what every desktop has (libc, glib, libX11 …).
No Qt, no torch: this runs before either is imported.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping, Sequence

# soname -> (Debian/Ubuntu package, Fedora package)
XCB_LIBRARIES: dict[str, tuple[str, str]] = {
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
}

NOT_NEEDING_A_DISPLAY = ("offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs", "vkkhrdisplay")


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(loads: Callable[[str], bool] = _loads) -> list[str]:
    """The sonames of ``XCB_LIBRARIES`` that cannot be loaded."""
    return [name for name in XCB_LIBRARIES if not loads(name)]


def install_hint(missing: Sequence[str]) -> str:
    """One line: which libraries are missing and the apt and dnf commands that install them."""
    apt = sorted({XCB_LIBRARIES[m][0] for m in missing})
    dnf = sorted({XCB_LIBRARIES[m][1] for m in missing})
    return (f"the window cannot open: missing system libraries for Qt's X11 platform ({', '.join(missing)}); "
            f"install them with `sudo apt install {' '.join(apt)}` (Debian/Ubuntu) or "
            f"`sudo dnf install {' '.join(dnf)}` (Fedora)")


def qt_platform(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The platform Qt will pick: ``-platform NAME``, else ``QT_QPA_PLATFORM``, else wayland or xcb by session."""
    if "-platform" in argv[:-1]:
        return argv[list(argv).index("-platform") + 1]
    if env.get("QT_QPA_PLATFORM"):
        return env["QT_QPA_PLATFORM"]
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def gui_start_problem(argv: Sequence[str], env: Mapping[str, str] | None = None, platform: str | None = None,
                      loads: Callable[[str], bool] = _loads) -> str | None:
    """Why the GUI cannot start here (one line), or None. Only Linux is checked."""
    env = os.environ if env is None else env
    if not (platform or sys.platform).startswith("linux"):
        return None
    choice = qt_platform(argv, env).split(";")[0].split(":")[0]
    if choice in NOT_NEEDING_A_DISPLAY:
        return None
    no_display = ("no display: DISPLAY and WAYLAND_DISPLAY are not set, so the window cannot open; run `studio` "
                  "in a desktop session, or use the headless commands (`studio --help`)")
    if choice.startswith("wayland"):  # Qt falls back to xcb when wayland fails
        return None if env.get("WAYLAND_DISPLAY") or env.get("DISPLAY") else no_display
    if choice != "xcb":
        return None
    if not env.get("DISPLAY"):
        return no_display
    missing = missing_libraries(loads)
    return install_hint(missing) if missing else None
