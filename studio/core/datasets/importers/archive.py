"""Zip and tar archives, unpacked into a private folder inside the cache (never anywhere else).

An entry whose path would land outside that folder (``../``, an absolute path, a drive letter) or
that is a link or a device makes the whole archive refused before anything else happens to it.
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


def _copy(src, target: Path, progress: Progress) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:
        while chunk := src.read(CHUNK):
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
            _check_space(dest, sum(i.file_size for i in infos), path)
            progress.stage(f"unpacking {path.name}", sum(i.file_size for i in infos))
            for info, target in zip(infos, targets, strict=True):
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                with zf.open(info) as src:
                    _copy(src, target, progress)
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
                    if total > 50 * size + (1 << 30):
                        _check_space(dest, total, path)
                    src = tf.extractfile(member)
                    if src is not None:
                        _copy(src, target, progress)
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
