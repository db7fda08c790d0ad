"""``studio --install-desktop`` / ``--uninstall-desktop``: the launcher and icon for the current user.

Files go under the XDG data dir (``$XDG_DATA_HOME``, else ``~/.local/share``):
``applications/studio.desktop`` and ``icons/hicolor/<size>x<size>/apps/studio.png`` (+ ``scalable/…/studio.svg``),
so Studio appears in the application menu and can be double-clicked; ``mime/packages/studio.xml`` gives
``*.studio-lesson`` files their type (``application/x-studio-lesson``), which the launcher opens: a lesson opens in
Studio with a double-click. Torch-free and Qt-free.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from studio.core.host.paths import resource

APP_ID = "studio"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)

ENTRY = """\
[Desktop Entry]
Type=Application
Version=1.4
Name=Studio
GenericName=Deep-learning training studio
Comment=Train neural networks and watch them learn: live curves, loss landscapes, teaching demos
Exec={exec} %F
Icon={icon}
Terminal=false
StartupNotify=true
StartupWMClass=studio
Categories=Science;ArtificialIntelligence;
Keywords=neural network;deep learning;machine learning;training;PyTorch;
MimeType=application/x-studio-lesson;
"""

MIME_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="application/x-studio-lesson">
    <comment>Studio lesson</comment>
    <sub-class-of type="application/zip"/>
    <glob pattern="*.studio-lesson"/>
    <icon name="studio"/>
  </mime-type>
</mime-info>
"""


def data_home() -> Path:
    """``$XDG_DATA_HOME`` when set to an absolute path (as the spec says), else ``~/.local/share``."""
    env = os.environ.get("XDG_DATA_HOME", "")
    return Path(env) if env and os.path.isabs(env) else Path.home() / ".local" / "share"


def launcher_command() -> list[str]:
    """How this Studio is started: the frozen executable, the ``studio`` script, or ``python -m studio``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("studio")
    found = str(script) if script.exists() else shutil.which("studio")
    return [found] if found else [sys.executable, "-m", "studio"]


def _exec_quote(arg: str) -> str:
    """Quote one Exec argument per the Desktop Entry spec (double quotes; escape ``"`$\\``)."""
    if arg and all(c.isalnum() or c in "/._-+:=," for c in arg):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{escaped}"'.replace("\\", "\\\\")  # the .desktop string layer escapes backslashes again


def desktop_entry(command: list[str] | None = None, icon: str = APP_ID) -> str:
    """The text of the .desktop file launching ``command`` (``studio`` as in packaging/linux/studio.desktop)."""
    command = ["studio"] if command is None else command
    return ENTRY.format(exec=" ".join(_exec_quote(a) for a in command), icon=icon)


def installed_paths(base: Path | None = None) -> list[Path]:
    base = base or data_home()
    icons = base / "icons" / "hicolor"
    return [base / "applications" / f"{APP_ID}.desktop", icons / "scalable" / "apps" / f"{APP_ID}.svg",
            *(icons / f"{s}x{s}" / "apps" / f"{APP_ID}.png" for s in ICON_SIZES),
            base / "mime" / "packages" / f"{APP_ID}.xml"]


def _refresh_caches(base: Path) -> None:
    """Tell the desktop about the change where the tools exist (best effort: menus also rescan alone)."""
    for tool, flags, arg in (("update-desktop-database", ["-q"], base / "applications"),
                             ("gtk-update-icon-cache", ["-q", "-t"], base / "icons" / "hicolor"),
                             ("update-mime-database", [], base / "mime")):
        if shutil.which(tool) and arg.exists():
            subprocess.run([tool, *flags, str(arg)], capture_output=True, check=False, timeout=30)


def install(base: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the launcher and the icons; returns the files written."""
    base = base or data_home()
    entry, svg, *pngs, mime = installed_paths(base)
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(desktop_entry(command or launcher_command()), encoding="utf-8")
    svg.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(resource("icons", "studio.svg"), svg)
    for size, png in zip(ICON_SIZES, pngs, strict=True):
        png.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(resource("icons", f"studio-{size}.png"), png)
    mime.parent.mkdir(parents=True, exist_ok=True)
    mime.write_text(MIME_XML, encoding="utf-8")
    _refresh_caches(base)
    return [entry, svg, *pngs, mime]


def uninstall(base: Path | None = None) -> list[Path]:
    """Remove what ``install`` wrote; returns the files removed."""
    base = base or data_home()
    removed = []
    for path in installed_paths(base):
        if path.exists():
            path.unlink()
            removed.append(path)
    _refresh_caches(base)
    return removed


def main(flag: str) -> int:
    """``studio --install-desktop`` or ``studio --uninstall-desktop``."""
    if flag == "--install-desktop":
        files = install()
        print(f"installed the Studio launcher: {files[0]} (and {len(files) - 2} icons, the lesson file type)")
        print(f"it runs: {' '.join(shlex.quote(a) for a in launcher_command())}")
    else:
        files = uninstall()
        print(f"removed {len(files)} files" + (f" ({files[0]}, …)" if files else " (nothing was installed)"))
    return 0
