"""The run folder keeps the exact code it trained: each user file of a config (a ``python`` model or dataset) is
copied into ``code/`` with its source path and SHA-256 in ``code/manifest.json``, and the run's ``config.toml``
names the copy (``path = "code/my_net.py"``, relative to the run folder). So a run is reproducible without the
user's tree, its ranks (spawned, torchrun, Slurm: the run folder is what they share) import the copy, and
``studio compare`` tells two runs' code apart by the hash (the ``model.code`` / ``data.code`` settings)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.core.contracts import layout
from studio.core.usercode.trust import run_folder_of, sha256_of, trusted_hashes

CODE_SECTIONS = ("model", "data")
USER_FILE = "python"  # the entry name whose ``path`` is a user's .py file


@dataclass(frozen=True)
class CodeCopy:
    """One copied file: the config section it serves, where it came from, its name in ``code/``, its hash."""

    section: str
    source: str
    file: str
    sha256: str


def user_files(config: dict[str, Any]) -> list[tuple[str, Path]]:
    """(section, path) of each user file a config's dict names."""
    out = []
    for section in CODE_SECTIONS:
        values = config.get(section, {})
        if values.get("name") == USER_FILE and values.get("path"):
            out.append((section, Path(str(values["path"]))))
    return out


def copy_code(run_dir: Path, config: dict[str, Any],
              home: str | Path | None = None) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """Copy the config's user files into ``run_dir/code/``; returns the config naming the copies (relative to the
    run folder), the settings to record (``model.code``: the hash's first 12 digits) and the hashes to trust (a
    file of the user's own tree, or an already trusted copy, stays trusted in its new place)."""
    files = user_files(config)
    if not files:
        return config, {}, []
    folder = layout.code_dir(run_dir)
    folder.mkdir(exist_ok=True)
    copies: list[CodeCopy] = []
    names: set[str] = set()
    known = trusted_hashes(home)
    trusted = []
    out = json.loads(json.dumps(config))
    for section, path in files:
        name = path.name if path.name not in names else f"{section}_{path.name}"
        names.add(name)
        shutil.copyfile(path, folder / name)
        digest = sha256_of(folder / name)
        copies.append(CodeCopy(section, str(path), name, digest))
        if run_folder_of(path) is None or digest in known:
            trusted.append(digest)
        out[section]["path"] = f"{layout.CODE}/{name}"
    manifest = {"files": [vars(c) for c in copies]}
    layout.code_manifest_path(run_dir).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return out, {f"{c.section}.code": c.sha256[:12] for c in copies}, trusted


def read_manifest(run_dir: str | Path) -> list[CodeCopy]:
    """The run's copied files ([] for a run without user code, or an unreadable manifest)."""
    try:
        data = json.loads(layout.code_manifest_path(run_dir).read_text(encoding="utf-8"))
        return [CodeCopy(**f) for f in data.get("files", [])]
    except (OSError, ValueError, TypeError):
        return []


def relative_to_run(config: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """A config dict whose user files inside ``run_dir/code`` are named relative to the run folder."""
    out = json.loads(json.dumps(config))
    for section, path in user_files(config):
        try:
            out[section]["path"] = str(Path(path).resolve().relative_to(Path(run_dir).resolve())).replace("\\", "/")
        except ValueError:
            continue
    return out


def point_to_copies(config: Any, run_dir: str | Path | None) -> Any:
    """``config`` (a RunConfig) with each user file replaced by its copy in ``run_dir/code/`` when the run has
    one: what ranks and tasks import, whichever machine or folder they start in."""
    if not run_dir:
        return config
    copies = {c.section: c for c in read_manifest(run_dir)}
    if not copies:
        return config
    out = config.copy()
    for section, copy in copies.items():
        choice = getattr(out, section)
        if choice.name == USER_FILE:
            choice.params["path"] = str(layout.code_dir(run_dir) / copy.file)
    return out
