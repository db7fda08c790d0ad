"""The Linux launcher: `studio --install-desktop` / `--uninstall-desktop` into the XDG data dir, the desktop
entry is valid, the icons exist at their sizes, and the frozen entry point serves `-c` and `-m studio`."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from studio import app, desktop
from studio.core.host.paths import resource

REPO = Path(__file__).resolve().parents[2]
validate = shutil.which("desktop-file-validate")
needs_validator = pytest.mark.skipif(validate is None, reason="desktop-file-validate is not installed "
                                                               "(apt-get install desktop-file-utils)")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_install_and_uninstall_into_xdg_data_home(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "xdg"))
    done = subprocess.run([sys.executable, "-m", "studio", "--install-desktop"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    entry = tmp_path / "xdg" / "applications" / "studio.desktop"
    text = entry.read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    program = exec_line.removeprefix("Exec=").rsplit(" %F", 1)[0].strip('"').split(" ")[0]
    assert os.path.isabs(program) and os.access(program, os.X_OK)  # the launcher runs this very Studio
    icons = tmp_path / "xdg" / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / "studio.svg").read_bytes() == resource("icons", "studio.svg").read_bytes()
    for size in desktop.ICON_SIZES:
        assert png_size(icons / f"{size}x{size}" / "apps" / "studio.png") == (size, size)
    assert "MimeType=application/x-studio-lesson;" in text  # a lesson opens with a double-click
    mime = (tmp_path / "xdg" / "mime" / "packages" / "studio.xml").read_text()
    assert '<glob pattern="*.studio-lesson"/>' in mime and 'type="application/x-studio-lesson"' in mime
    if validate:
        check = subprocess.run([validate, str(entry)], capture_output=True, text=True)
        assert check.returncode == 0 and check.stdout == "", check.stdout
    done = subprocess.run([sys.executable, "-m", "studio", "--uninstall-desktop"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "removed 11 files" in done.stdout
    assert not entry.exists() and not list(icons.rglob("studio.*"))


def test_xdg_data_home_must_be_absolute(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # the spec says: ignore a relative path
    assert desktop.data_home() == tmp_path / ".local" / "share"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert desktop.data_home() == tmp_path / ".local" / "share"


def test_exec_quoting_survives_spaces_and_specials():
    line = desktop.desktop_entry(['/opt/my apps/stu"dio']).splitlines()
    assert 'Exec="/opt/my apps/stu\\\\"dio" %F' in line


def test_packaged_entry_matches_the_generated_one():
    assert (REPO / "packaging" / "linux" / "studio.desktop").read_text() == desktop.desktop_entry()
    assert (REPO / "packaging" / "linux" / "studio.xml").read_text() == desktop.MIME_XML


@needs_validator
def test_packaged_desktop_entry_is_valid():
    check = subprocess.run([validate, str(REPO / "packaging" / "linux" / "studio.desktop")], capture_output=True,
                           text=True)
    assert check.returncode == 0 and check.stdout == "", check.stdout


def test_icons_are_rendered_at_every_size():
    assert b"<svg" in resource("icons", "studio.svg").read_bytes()
    for size in desktop.ICON_SIZES:
        assert png_size(resource("icons", f"studio-{size}.png")) == (size, size)


def test_frozen_entry_serves_python_style_child_commands(monkeypatch, capsys):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert app.main(["-c", "import sys; print('probe', sys.argv[1:])", "extra"]) == 0
    assert app.main(["-m", "studio", "--version"]) == 0
    out = capsys.readouterr().out
    assert "probe ['extra']" in out and "studio 0." in out
    monkeypatch.setattr(sys, "frozen", False)
    assert app._frozen_python(["train"]) is None
