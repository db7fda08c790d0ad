"""Code from run folders runs only when this user has agreed: "opening someone else's run folder never executes
its code without asking".

A file in the user's own tree is theirs: Studio imports it when they train it. Its copy in a run folder
(``code/``, core/usercode/run_copy.py) is trusted by the hash Studio recorded when it made that copy; a copy in a
run folder someone else made (a folder opened from elsewhere, another store) is imported only once its SHA-256 is in
``HOME/trusted_code.json`` (``HOME``: the user's Studio home, whichever run store is open): the window asks when
such a run is opened, and ``studio trust RUN`` says yes in a terminal.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from studio.core.contracts import layout
from studio.core.usercode.errors import UserCodeError


def sha256_of(path: str | Path) -> str:
    """The file's SHA-256, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _home(home: str | Path | None) -> Path:
    if home is not None:
        return Path(home)
    from studio.core.host.paths import studio_home

    return studio_home()


def trusted_hashes(home: str | Path | None = None) -> set[str]:
    """The hashes this user agreed to run (empty when none, or the file is unreadable)."""
    try:
        data = json.loads(layout.trusted_code_path(_home(home)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(h) for h in data.get("sha256", [])} if isinstance(data, dict) else set()


def trust(hashes: list[str], home: str | Path | None = None) -> None:
    """Add ``hashes`` to the trusted list (written atomically)."""
    path = layout.trusted_code_path(_home(home))
    known = trusted_hashes(home)
    if set(hashes) <= known:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"sha256": sorted(known | set(hashes))}, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def run_folder_of(path: str | Path) -> Path | None:
    """The run folder whose ``code/`` (or ``attached/``: a model trained outside Studio, core/models/attached.py)
    holds ``path``, or None for a file of the user's own tree."""
    path = Path(path).resolve()
    parent = path.parent
    if parent.name in (layout.CODE, layout.ATTACHED) and layout.is_run_dir(parent.parent):
        return parent.parent
    return None


def trust_copy(path: str | Path) -> None:
    """Trust a copy Studio just made of the user's own file into a run folder (their code: it may run again)."""
    trust([sha256_of(path)])


def untrusted(paths: list[Path], home: str | Path | None = None) -> list[Path]:
    """The files of ``paths`` that sit in a run folder and whose hash this user has not trusted."""
    copies = [p for p in paths if run_folder_of(p) is not None and Path(p).is_file()]
    if not copies:
        return []
    known = trusted_hashes(home)
    return [p for p in copies if sha256_of(p) not in known]


def check_trusted(path: str | Path, home: str | Path | None = None) -> None:
    """UserCodeError unless ``path`` may be imported (the user's own file, or a trusted copy)."""
    if untrusted([Path(path)], home):
        run = run_folder_of(path)
        raise UserCodeError(f"run folder {run} holds code you have not trusted ({Path(path).name}): read it, then "
                            f"trust it with studio trust {run} (the window asks when you open the run)")
