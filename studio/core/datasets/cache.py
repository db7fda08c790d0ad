"""The dataset cache: one folder per dataset under the data dir, holding uint8 arrays as .npy
files (readable without torch, memory-mappable for previews) and a small JSON manifest.

Writes are atomic: an import fills a hidden staging folder and renames it into place at the end,
so a failed or cancelled import leaves no entry. Entries are keyed by their source (path, size,
modification time of every file) and the import options, so importing the same thing again is
instant. Torch-free; numpy is imported only where arrays are read or written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from studio.core.errors import DataError
from studio.core.host import procs

FORMAT = 1
MANIFEST = "manifest.json"
ARRAYS = ("x", "y", "split")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")


def root(create: bool = True) -> Path:
    """The cache folder: ``$STUDIO_DATA_DIR`` or ``<studio home>/datasets`` (as in core/host/paths.py,
    but only created when asked, so reading the registry never makes folders)."""
    if create:
        from studio.core.host.paths import data_dir

        return data_dir()
    env = os.environ.get("STUDIO_DATA_DIR")
    if env:
        return Path(env)
    home = os.environ.get("STUDIO_HOME")
    if home:
        return Path(home) / "datasets"
    import platformdirs

    return Path(platformdirs.user_data_dir("studio", appauthor=False)) / "datasets"


def stamp() -> tuple[str, int, tuple[str, ...]]:
    """Changes whenever an entry is added, replaced or removed (the cache folder's path, mtime and names)."""
    base = root(create=False)
    try:
        return str(base), base.stat().st_mtime_ns, tuple(sorted(os.listdir(base)))
    except OSError:
        return str(base), -1, ()


def sanitise(name: str) -> str:
    """A registry-friendly name from any text: lower case, letters, digits, _ and -."""
    text = re.sub(r"[^a-z0-9_\-]+", "_", name.strip().lower()).strip("_-")
    return text[:64] or "dataset"


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise DataError(f"a dataset name must be 1 to 64 lower-case letters, digits, _ or -, starting with a "
                        f"letter or digit; {name!r} is not")
    return name


# --- reading -------------------------------------------------------------------------------
def read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT and data.get("name") else None


def entries() -> list[dict[str, Any]]:
    """Manifests of every complete entry, by name."""
    base = root(create=False)
    out = []
    try:
        folders = sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    for folder in folders:
        manifest = read_manifest(folder)
        if manifest and manifest["name"] == folder.name:
            out.append(manifest)
    return out


def manifest(name: str) -> dict[str, Any] | None:
    return read_manifest(root(create=False) / name) if NAME_RE.match(name) else None


def find_key(key: str) -> dict[str, Any] | None:
    return next((m for m in entries() if m.get("key") == key), None)


def load_arrays(name: str, mmap: bool = False) -> dict[str, Any]:
    """{'x', 'y', 'split'} numpy arrays of entry ``name`` (memory-mapped when ``mmap``)."""
    import numpy as np

    folder = root(create=False) / name
    if manifest(name) is None:
        raise DataError(f"the dataset {name!r} is not in the cache ({root(create=False)}); import it again")
    try:
        return {k: np.load(folder / f"{k}.npy", mmap_mode="r" if mmap else None, allow_pickle=False)
                for k in ARRAYS}
    except (OSError, ValueError) as err:
        raise DataError(f"the cached dataset {name!r} is damaged ({err}); remove it and import it again") from None


# --- keys ----------------------------------------------------------------------------------
def fingerprint(path: Path) -> str:
    """A hash of a file's or folder's path, sizes and modification times (no contents read)."""
    h = hashlib.sha256(str(path.resolve()).encode())
    if path.is_file():
        st = path.stat()
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        return h.hexdigest()

    def walk(folder: str, rel: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, f"{rel}{entry.name}/")
                else:
                    st = entry.stat(follow_symlinks=False)
                    h.update(f"{rel}{entry.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
            except OSError:
                continue

    walk(str(path), "")
    return h.hexdigest()


def make_key(source: Path, options: dict[str, Any], version: int) -> str:
    text = json.dumps({"source": fingerprint(source), "options": options, "version": version}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# --- writing -------------------------------------------------------------------------------
def clean_stale() -> None:
    """Remove staging folders left by imports whose process died (a crash or a kill)."""
    base = root(create=False)
    try:
        folders = [p for p in base.iterdir() if p.name.startswith((".tmp-", ".old-"))]
    except OSError:
        return
    for folder in folders:
        parts = folder.name.split("-")
        if folder.name.startswith(".old-") or (len(parts) > 2 and parts[1].isdigit() and not procs.alive(parts[1])):
            shutil.rmtree(folder, ignore_errors=True)


def staging_prefix(pid: int | None = None) -> str:
    return f".tmp-{pid or os.getpid()}-"


def remove_staging(pid: int) -> None:
    """Remove every staging folder of process ``pid`` (after it was cancelled or killed)."""
    base = root(create=False)
    with contextlib.suppress(OSError):
        for folder in base.iterdir():
            if folder.name.startswith(staging_prefix(pid)):
                shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def staging() -> Iterator[Path]:
    """A hidden folder in the cache to build an entry in; removed unless committed."""
    base = root()
    clean_stale()
    folder = base / f"{staging_prefix()}{os.urandom(4).hex()}"  # os.urandom: uuid imports platform
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def commit(stage: Path, name: str, arrays: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    """Write ``arrays`` and the manifest into ``stage`` and move it into place as entry ``name``
    (replacing an older entry of that name). Returns the manifest."""
    import numpy as np

    check_name(name)
    entry = stage / "entry"
    entry.mkdir()
    nbytes = 0
    for key in ARRAYS:
        np.save(entry / f"{key}.npy", np.ascontiguousarray(arrays[key]), allow_pickle=False)
        nbytes += arrays[key].nbytes
    data = {"format": FORMAT, "name": name, "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "bytes": nbytes, **info}
    (entry / MANIFEST).write_text(json.dumps(data, indent=1), encoding="utf-8")
    base = root()
    final = base / name
    old = None
    if final.exists():
        old = base / f".old-{os.urandom(4).hex()}"
        os.replace(final, old)
    os.replace(entry, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return data


def remove(name: str) -> None:
    """Delete entry ``name`` (renamed away first, so it disappears at once)."""
    base = root(create=False)
    folder = base / name
    if not NAME_RE.match(name) or read_manifest(folder) is None:
        raise DataError(f"there is no cached dataset {name!r}")
    old = base / f".old-{os.urandom(4).hex()}"
    os.replace(folder, old)
    shutil.rmtree(old, ignore_errors=True)
