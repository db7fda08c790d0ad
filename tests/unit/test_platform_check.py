"""Missing X11 libraries are found before Qt aborts, and the message names the packages to install."""

from studio import platform_check as pc

XCB_ENV = {"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}


def test_missing_libraries_name_their_debian_and_fedora_packages():
    gone = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}
    problem = pc.gui_start_problem([], XCB_ENV, "linux", loads=lambda name: name not in gone)
    assert problem is not None and "\n" not in problem
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in problem
    assert "sudo dnf install xcb-util-keysyms xcb-util-wm" in problem
    assert "libxcb-cursor" not in problem  # Qt's own message blames cursor whatever is missing; we don't


def test_nothing_to_say_when_everything_loads_or_no_x11_is_used():
    assert pc.gui_start_problem([], XCB_ENV, "linux", loads=lambda name: True) is None
    never = lambda name: False  # noqa: E731
    assert pc.gui_start_problem([], {"QT_QPA_PLATFORM": "offscreen"}, "linux", loads=never) is None
    assert pc.gui_start_problem([], {}, "darwin", loads=never) is None
    assert pc.gui_start_problem(["-platform", "offscreen"], {"DISPLAY": ":0"}, "linux", loads=never) is None


def test_no_display_is_named():
    assert "no display" in pc.gui_start_problem([], {}, "linux", loads=lambda name: True)
    wayland = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
    assert pc.gui_start_problem([], wayland, "linux", loads=lambda name: False) is None

