"""Zip and tar archives, unpacked into a private folder inside the cache (never anywhere else).

An entry whose path would land outside that folder (``../``, an absolute path, a drive letter) or
that is a link or a device makes the whole archive refused before anything else happens to it.
So does an archive bomb: one that declares far more bytes than its own size (``MAX_RATIO``) or more than
``MAX_UNPACKED`` in all, refused from the declared sizes before unpacking; and since declared sizes can
lie, the bytes actually written are counted and capped while unpacking.
"""

from __future__ import annotations

import re
import shutil
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from studio.core.datasets.importers.progress import Progress
from studio.core.errors import DataError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
CHUNK = 1 << 20
SPARE_BYTES = 200 << 20  # leave this much disk free after unpacking
MAX_RATIO = 100  # unpacked ÷ archive size above which a big archive is a bomb (image datasets: ~1–5)
RATIO_FREE = 256 << 20  # archives unpacking to less than this are not held to MAX_RATIO
MAX_UNPACKED = 64 << 30  # bytes one archive may unpack to, at most


def allowance(archive_size: int) -> int:
    """The most bytes an archive of ``archive_size`` bytes may unpack to."""
    return min(MAX_UNPACKED, max(RATIO_FREE, MAX_RATIO * archive_size))


def _check_bomb(path: Path, declared: int) -> None:
    size = path.stat().st_size
    if declared > allowance(size):
        raise DataError(f"{path.name} would unpack to {declared / 1e9:.1f} GB from {size / 1e6:.1f} MB (×"
                        f"{declared / max(size, 1):.0f}); Studio refuses such archive bombs (limit ×{MAX_RATIO}, "
                        f"{MAX_UNPACKED >> 30} GB)")


class _Budget:
    """Bytes still allowed to be written (declared sizes can lie)."""

    def __init__(self, path: Path, total: int) -> None:
        self.path, self.left = path, total

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise DataError(f"{self.path.name} unpacks to more than it declares or than its size allows; "
                            "Studio stopped unpacking it (an archive bomb?)")


def is_archive(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith(ARCHIVE_SUFFIXES):
        return True
    if path.suffix.lower() in (".gz", ".csv", ".npz", ".npy"):
        return False  # a .gz is a compressed single file (IDX), not an archive
    try:
        return path.is_file() and (zipfile.is_zipfile(path) or tarfile.is_tarfile(path))
    except OSError:
        return False


def archive_stem(path: Path) -> str:
    name = path.name
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _escapes(name: str) -> bool:
    text = name.replace("\\", "/")
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        return True
    return ".." in PurePosixPath(text).parts


def _target(dest: Path, name: str, archive: Path) -> Path:
    if _escapes(name) or "\x00" in name:
        raise DataError(f"{archive.name} holds an entry whose path leaves the archive's folder ({name!r}); "
                        "Studio refuses such archives and wrote nothing")
    target = (dest / name.replace("\\", "/")).resolve()
    if not target.is_relative_to(dest.resolve()):
        raise DataError(f"{archive.name} holds an entry that would be written outside its folder ({name!r}); "
                        "Studio refuses such archives and wrote nothing")
    return target


def _check_space(dest: Path, needed: int, archive: Path) -> None:
    free = shutil.disk_usage(dest).free
    if needed + SPARE_BYTES > free:
        raise DataError(f"{archive.name} unpacks to {needed / 1e9:.1f} GB but the cache's disk has only "
                        f"{free / 1e9:.1f} GB free")


def _copy(src, target: Path, progress: Progress, budget: _Budget | None = None, limit: int | None = None) -> None:
    """Copy ``src`` to ``target``, at most ``limit`` bytes (its declared size) and within ``budget``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(target, "xb") as out:
        while chunk := src.read(CHUNK):
            written += len(chunk)
            if budget is not None:
                budget.spend(len(chunk))
            if limit is not None and written > limit:
                raise DataError(f"{target.name} in the archive is larger than it declares; Studio stopped "
                                "unpacking (an archive bomb?)")
            out.write(chunk)
            progress.advance(len(chunk))


def extract_zip(path: Path, dest: Path, progress: Progress) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            targets = []
            for info in infos:  # check every entry before writing anything
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise DataError(f"{path.name} holds a symbolic link ({info.filename!r}); links can point "
                                    "outside the archive's folder, so Studio refuses such archives")
                targets.append(_target(dest, info.filename, path))
            declared = sum(i.file_size for i in infos)
            _check_bomb(path, declared)
            _check_space(dest, declared, path)
            progress.stage(f"unpacking {path.name}", declared)
            budget = _Budget(path, allowance(path.stat().st_size))
            for info, target in zip(infos, targets, strict=True):
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                with zf.open(info) as src:
                    _copy(src, target, progress, budget, info.file_size)
    except FileExistsError as err:
        raise DataError(f"{path.name} holds the same file twice ({Path(err.filename).name})") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, OSError) as err:
        raise DataError(f"{path.name} is not a readable zip archive ({err})") from None
    except RuntimeError as err:  # encrypted entries
        raise DataError(f"{path.name} cannot be unpacked: {err}") from None


def extract_tar(path: Path, dest: Path, progress: Progress) -> None:
    total = 0
    try:
        size = path.stat().st_size
        budget = _Budget(path, allowance(size))
        progress.stage(f"unpacking {path.name}", 0)
        with tarfile.open(path, "r:*") as tf:
            for member in tf:  # streamed: a bad entry stops it, and the caller removes the folder
                if member.issym() or member.islnk():
                    raise DataError(f"{path.name} holds a link ({member.name!r} → {member.linkname!r}); links "
                                    "can point outside the archive's folder, so Studio refuses such archives")
                target = _target(dest, member.name, path)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif member.isfile():
                    total += member.size
                    _check_bomb(path, total)  # declared so far: refused before this member is written
                    if total > 50 * size + (1 << 30):
                        _check_space(dest, total, path)
                    src = tf.extractfile(member)
                    if src is not None:
                        _copy(src, target, progress, budget, member.size)
                else:
                    raise DataError(f"{path.name} holds a special file ({member.name!r}: a device or pipe); "
                                    "Studio refuses such archives")
    except FileExistsError as err:
        raise DataError(f"{path.name} holds the same file twice ({Path(err.filename).name})") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise DataError(f"{path.name} is not a readable tar archive ({err})") from None


def extract_archive(path: Path, dest: Path, progress: Progress) -> Path:
    """Unpack ``path`` into the empty folder ``dest`` (inside the cache) and return ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    if zipfile.is_zipfile(path):
        extract_zip(path, dest, progress)
    else:
        extract_tar(path, dest, progress)
    return dest
