"""The ``.studio-lesson`` file: a zip holding ``manifest.json`` (the format, its version, the Studio that wrote it,
when, and the SHA-256 of every other member) and ``lesson.json`` (the title and the steps, ``lesson.py``). JSON
only: no pickle, no code. Read defensively: capped in size (the file, each member, the members' total: no zip
bomb), every member's checksum compared, unknown or nested member names refused; each refusal is one sentence
(``LessonError``). Written beside as ``.part`` and renamed: a failed save leaves no half file."""

from __future__ import annotations

import datetime
import errno
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from studio.core.lessons.lesson import Lesson, LessonError, lesson_from_dict

SUFFIX = ".studio-lesson"
MIME = "application/x-studio-lesson"
FORMAT = "studio-lesson"
VERSION = 1  # the newest format this Studio reads and the one it writes
MAX_FILE = 8 * 1024 * 1024  # bytes of the file
MAX_MEMBER = 4 * 1024 * 1024  # bytes of one member, unpacked
MEMBERS = ("manifest.json", "lesson.json")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save(lesson: Lesson, path: str | Path) -> Path:
    """Write ``lesson`` to ``path`` (``.studio-lesson`` added when missing); the path written."""
    from studio import __version__

    path = Path(path).expanduser()
    if path.suffix.lower() != SUFFIX:
        path = path.with_name(path.name + SUFFIX)
    body = json.dumps(lesson.to_dict(), indent=1, ensure_ascii=False).encode("utf-8")
    if len(body) > MAX_MEMBER:
        raise LessonError(f"the lesson is too large to save ({len(body):,} bytes of steps; at most {MAX_MEMBER:,})")
    manifest = {"format": FORMAT, "version": VERSION, "studio": __version__,
                "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "title": lesson.title, "steps": len(lesson.steps), "sha256": {"lesson.json": sha256(body)}}
    part = path.with_name(path.name + ".part")
    try:
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False))
            zf.writestr("lesson.json", body)
        part.replace(path)
    except OSError as err:
        part.unlink(missing_ok=True)
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise LessonError(f"the disk is full: {path.name} was not saved; free some space or choose another "
                              "folder") from None
        raise LessonError(f"{path.name} could not be saved: {err.strerror or err}") from None
    return path


def load(path: str | Path) -> tuple[Lesson, dict[str, Any]]:
    """The lesson in ``path`` and its manifest; LessonError in one sentence (naming the file) when it cannot be
    opened: missing, too large, damaged or changed, from a newer Studio."""
    path = Path(path).expanduser()
    try:
        return _load(path)
    except LessonError as err:
        raise LessonError(f"{path.name} cannot be opened: {err}") from None


def _load(path: Path) -> tuple[Lesson, dict[str, Any]]:
    if not path.is_file():
        raise LessonError("there is no such file")
    size = path.stat().st_size
    if size > MAX_FILE:
        raise LessonError(f"it is {size / 1e6:.1f} MB, more than a lesson file holds ({MAX_FILE // 2 ** 20} MB)")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {i.filename: i for i in zf.infolist()}
            if "manifest.json" not in infos:
                raise LessonError("it is damaged or not a lesson file (no manifest); ask for it again")
            manifest = _json(zf, infos["manifest.json"])
            _check_manifest(manifest)
            unknown = sorted(set(infos) - set(MEMBERS))
            if unknown:
                raise LessonError(f"it holds {unknown[0]!r}, which a lesson file does not; ask for it again")
            if "lesson.json" not in infos:
                raise LessonError("it is damaged (its steps are missing); ask for it again")
            raw = _read(zf, infos["lesson.json"])
    except zipfile.BadZipFile:
        raise LessonError("it is damaged or not a lesson file (not a whole, readable zip archive); ask for it again") \
            from None
    except (OSError, EOFError, zipfile.LargeZipFile, NotImplementedError) as err:
        raise LessonError(f"it is damaged; ask for it again ({err})") from None
    expected = (manifest.get("sha256") or {}).get("lesson.json")
    if expected != sha256(raw):
        raise LessonError("it is damaged or was changed after it was saved (its checksum does not match); ask for "
                          "it again")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise LessonError("it is damaged (its steps are not readable); ask for it again") from None
    return lesson_from_dict(data), manifest


def _check_manifest(manifest: Any) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise LessonError("it is not a Studio lesson (its manifest names another format)")
    version = manifest.get("version")
    if not isinstance(version, int) or version < 1:
        raise LessonError("it is damaged (its manifest has no format version); ask for it again")
    if version > VERSION:
        from studio import __version__

        raise LessonError(f"it was saved by a newer Studio ({manifest.get('studio', '?')}, lesson format {version}); "
                          f"this Studio ({__version__}) reads format {VERSION}: update Studio to open it")


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, refused before unpacking when it claims too much, and while unpacking if it lies."""
    if info.file_size > MAX_MEMBER:
        raise LessonError(f"it is damaged: {info.filename} unpacks to more than {MAX_MEMBER // 2 ** 20} MB")
    with zf.open(info) as fh:
        data = fh.read(MAX_MEMBER + 1)
    if len(data) > MAX_MEMBER:
        raise LessonError(f"it is damaged: {info.filename} unpacks to more than {MAX_MEMBER // 2 ** 20} MB")
    return data


def _json(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Any:
    try:
        return json.loads(_read(zf, info).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise LessonError("it is damaged (its manifest is not readable); ask for it again") from None
