"""Read-only folders and small full disks for the fault tests: real mounts as root (who ignores file modes),
chmod or a user namespace otherwise; a test skips where neither is allowed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def made_read_only(folder: Path) -> Iterator[Path]:
    """``folder`` read-only while inside (a read-only bind mount as root, who ignores file modes; chmod
    otherwise); skipped where neither works."""
    if os.geteuid() == 0:
        if subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)], capture_output=True).returncode:
            pytest.skip("cannot make a read-only mount here")
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=False, capture_output=True)
    else:
        folder.chmod(0o555)
    try:
        yield folder
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=False, capture_output=True)
        folder.chmod(0o755)



def tmpfs(path: Path, size: str) -> list[str]:
    """A command prefix that runs inside a ``size`` tmpfs mounted at ``path``: a real mount as root, else a
    user+mount namespace (``unshare -rm``); skipped where neither is allowed."""
    path.mkdir(parents=True, exist_ok=True)
    mount = f"mount -t tmpfs -o size={size} tmpfs {path}"
    probe = subprocess.run(["unshare", "-m", "sh", "-c", mount] if os.geteuid() == 0
                           else ["unshare", "-rm", "sh", "-c", mount], capture_output=True)
    if probe.returncode:
        pytest.skip(f"cannot mount a small tmpfs here: {probe.stderr.decode().strip()}")
    return ["unshare", "-m" if os.geteuid() == 0 else "-rm", "sh", "-c", f'{mount} && exec "$@"', "sh"]
