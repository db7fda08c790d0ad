"""Files the user asked Studio to write (exports): the target must be a regular file or a new name (never a
FIFO, a device, a socket, a folder or a link), the bytes go to a temporary name beside it that is renamed
over it, a temporary file is removed on any failure, and every OS error becomes one sentence
(:class:`~studio.core.errors.OutputError`, exit 2). Qt- and torch-free."""

from __future__ import annotations

import errno
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from studio.core.errors import OutputError

KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
         (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def reason(err: OSError) -> str:
    """An OS error in words a person can act on."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full (free some space)"
    if err.errno == errno.EROFS:
        return "the folder is on a read-only file system"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return err.strerror or str(err)


def check_target(path: str | Path) -> Path:
    """``path`` when it can be written: a new name or an existing regular file, in a folder that exists (it is
    created) and can be written (probed). Else an OutputError."""
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise OutputError(f"cannot write {path}: {reason(err)}") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = next((name for test, name in KINDS if test(mode)), "not a regular file")
        raise OutputError(f"{path} is {kind}; give a new file name or an existing regular file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"cannot write {path}: {reason(err)}") from None
    return path


def writable_folder(folder: str | Path, what: str) -> Path:
    """Make ``folder`` and prove it can be written (before a long computation whose ``what`` it will hold);
    else an OutputError."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".studio-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise OutputError(f"cannot save {what} in {folder}: {reason(err)}") from None
    return folder


def check_space(folder: str | Path, needed: int, what: str) -> None:
    """Refuse, before writing, when ``folder``'s file system has fewer than ``needed`` bytes free."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return  # cannot tell: the write itself will say
    if free < needed:
        raise OutputError(f"cannot write {what}: it needs {needed / 1e6:.1f} MB and {folder} has "
                          f"{free / 1e6:.1f} MB free; free some space or choose another folder")


def temp_name(path: Path) -> Path:
    """The temporary name ``path`` is written under (hidden, per process, same folder, never its suffix)."""
    return path.with_name(f".{path.name}.{os.getpid()}.part")


@contextmanager
def writing(path: str | Path, needed: int = 0) -> Iterator[Path]:
    """Yield the temporary path to write ``path``'s content to; on success it is fsynced and renamed over
    ``path``. On any failure it is removed and an OS error becomes an OutputError naming ``path``."""
    path = check_target(path)
    if needed:
        check_space(path.parent, needed, str(path))
    tmp = temp_name(path)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        check_target(path)  # still a regular file or a new name
        os.replace(tmp, path)
    except OSError as err:
        _remove(tmp)
        raise OutputError(f"cannot write {path}: {reason(err)}") from None
    except BaseException:
        _remove(tmp)
        raise


def write_bytes(path: str | Path, data: bytes | memoryview) -> int:
    """Write ``data`` to ``path`` safely (free space checked first); returns the bytes written."""
    size = len(data)
    with writing(path, needed=size + 64 * 1024) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
    return size


def _remove(tmp: Path) -> None:
    try:
        tmp.unlink()
    except OSError:
        pass
