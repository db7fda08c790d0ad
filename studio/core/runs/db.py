"""Opening the run store's SQLite database: schema migrations, clear errors, and recovery.

- Schema changes are additive: a numbered list of migrations (``MIGRATIONS``) applied in order and
  recorded in ``PRAGMA user_version``. Append to the list; never edit an applied entry.
- A file that is not a database (garbage, truncated, or emptied to zero bytes while run folders exist) is moved
  aside to ``runs.db.corrupt-<time>`` (kept, never deleted) and a new database is rebuilt from the run folders
  (``config.toml`` + ``run.json`` + ``metrics.csv``); for a run without ``metrics.csv`` (older runs) whatever metric
  rows can still be read from the damaged file are copied over. The rebuild is reported once, as a ``Recovery``.
- Every other failure (a folder named runs.db, a read-only home, a full disk) is a ``StoreError``: one line
  a person can act on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.contracts import layout
from studio.core.errors import StoreError
from studio.core.host import fault_points
from studio.core.vocab import JobState

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, name TEXT, created REAL, updated REAL, status TEXT,
    config TEXT, summary TEXT DEFAULT '{}', message TEXT DEFAULT '', dir TEXT
);
CREATE TABLE IF NOT EXISTS params (run_id TEXT, key TEXT, value TEXT, PRIMARY KEY (run_id, key));
CREATE TABLE IF NOT EXISTS metrics (run_id TEXT, step INTEGER, name TEXT, value REAL, wall REAL);
CREATE INDEX IF NOT EXISTS metrics_by_run ON metrics (run_id, name, step);
CREATE TABLE IF NOT EXISTS notes (run_id TEXT PRIMARY KEY, text TEXT);
"""

# (user_version after it, statements). Additive only: append new entries at the end.
MIGRATIONS: list[tuple[int, tuple[str, ...]]] = [
    (1, ("ALTER TABLE runs ADD COLUMN heartbeat REAL DEFAULT 0",  # last sign of life from rank 0
         "ALTER TABLE runs ADD COLUMN procs TEXT DEFAULT ''")),  # JSON: host, rank pids, semaphore names
    # ended runs' curves as packed little-endian columns (core/runs/curve_cache.py): derived, rebuilt when missing
    (2, ("CREATE TABLE IF NOT EXISTS curve_cache (run_id TEXT, name TEXT, upto_rowid INTEGER, count INTEGER, "
         "appended INTEGER DEFAULT 0, steps BLOB, vals BLOB, walls BLOB, overview BLOB, PRIMARY KEY (run_id, name))",)),
    (3, ("CREATE TABLE IF NOT EXISTS tags (run_id TEXT, tag TEXT, PRIMARY KEY (run_id, tag))",)),  # a person's tags
    # every run's curves as packed chunks appended as values arrive (core/runs/curve_chunks.py): derived
    (4, ("CREATE TABLE IF NOT EXISTS curve_chunks (run_id TEXT, upto_rowid INTEGER, level INTEGER, count INTEGER, "
         "names TEXT, name_ix BLOB, steps BLOB, vals BLOB, walls BLOB, PRIMARY KEY (run_id, upto_rowid))",
         "CREATE TABLE IF NOT EXISTS curve_chunked (run_id TEXT PRIMARY KEY)")),
    # a row added or removed by anything but this version's RunStore (an older Studio sharing the store) takes
    # its run off the chunked list, so it is read as rows until converted again; RunStore lists it again itself
    (5, ("CREATE TRIGGER IF NOT EXISTS metrics_added_unchunks AFTER INSERT ON metrics "
         "BEGIN DELETE FROM curve_chunked WHERE run_id=NEW.run_id; END",
         "CREATE TRIGGER IF NOT EXISTS metrics_removed_unchunks AFTER DELETE ON metrics "
         "BEGIN DELETE FROM curve_chunked WHERE run_id=OLD.run_id; END")),
]


def describe_sqlite(err: sqlite3.Error, path: Path) -> str:
    text = str(err)
    if "readonly" in text or "read-only" in text:
        return f"the run store {path} is read-only; set STUDIO_HOME to a folder you can write"
    if "disk is full" in text or "database or disk is full" in text:
        return f"the disk holding the run store {path} is full; free some space"
    if "unable to open" in text:
        return f"the run store {path} cannot be opened ({text}); check that its folder exists and is writable"
    if "locked" in text or "busy" in text:
        return f"the run store {path} is locked by another program ({text}); try again"
    return f"the run store {path} cannot be used: {text}"


def _migrate(db: sqlite3.Connection) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for target, statements in MIGRATIONS:
        if version >= target:
            continue
        for sql in statements:
            fault_points.reached("store.migrate")  # test-only: a crash between a migration's statements
            try:
                db.execute(sql)
            except sqlite3.OperationalError as err:  # another process migrated at the same time
                if "duplicate column" not in str(err) and "already exists" not in str(err):
                    raise
        db.execute(f"PRAGMA user_version={target}")
        db.commit()
        version = target


# Filesystems where SQLite's WAL mode does not work: WAL keeps its index in shared memory (the -shm file,
# mmap'd), which processes on different machines do not share. There the store uses a rollback journal, whose
# locks are POSIX file locks that these filesystems pass between machines (when their lock service works).
NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "ceph", "fuse.sshfs",
              "fuse.glusterfs", "glusterfs", "9p", "afs", "fuse.juicefs", "pvfs2", "orangefs", "panfs", "wekafs")


def filesystem_type(path: Path) -> str:
    """The type of the filesystem holding ``path`` (Linux /proc/self/mountinfo; "" elsewhere or unknown)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return ""
    target, best, fstype = str(Path(path).resolve()), "", ""
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        mount = fields[4].replace("\\040", " ")
        if (target == mount or target.startswith(mount.rstrip("/") + "/")) and len(mount) >= len(best):
            best, fstype = mount, right.split()[0]
    return fstype


def journal_mode(path: Path) -> str:
    """WAL on local disks; DELETE (a rollback journal) on network filesystems; ``STUDIO_STORE_JOURNAL``
    (wal or delete) decides when set."""
    forced = os.environ.get("STUDIO_STORE_JOURNAL", "").strip().lower()
    if forced in ("wal", "delete"):
        return forced.upper()
    return "DELETE" if filesystem_type(path.parent) in NETWORK_FS else "WAL"


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that can only read (``mode=ro``): watching a store another machine writes never changes it,
    never migrates it and never moves it aside, whatever it reads. StoreError when it cannot be opened."""
    if not path.is_file():
        raise StoreError(f"there is no run store at {path.parent} (no {path.name})")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10, check_same_thread=False)
        db.execute("SELECT count(*) FROM runs").fetchone()
    except sqlite3.Error as err:
        raise StoreError(describe_sqlite(err, path)) from None
    return db


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=60, check_same_thread=False)
    try:
        try:
            db.execute(f"PRAGMA journal_mode={journal_mode(path)}")
        except sqlite3.OperationalError as err:  # another process holds it open in the other mode: keep that one
            if "locked" not in str(err):
                raise
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        _migrate(db)
        db.execute("SELECT count(*), max(created) FROM runs").fetchone()  # touches every page of the table
        db.execute("SELECT max(rowid) FROM metrics").fetchone()
    except BaseException:
        db.close()
        raise
    return db


@dataclass(frozen=True)
class Recovery:
    """Run folders the database did not list, registered from their folders: all of them when the database was
    missing, or damaged (then moved aside to ``kept_as``); else the few it lacked."""

    database: Path
    kept_as: Path | None
    reason: str
    runs: int
    values: int
    skipped_lines: int = 0  # metrics.csv lines that could not be read (each costs that one value)
    skipped_examples: tuple[str, ...] = ()  # the first few: "run X metrics.csv line 17: longer than 64 KB"
    skipped_runs: tuple[str, ...] = ()  # folders that could not be registered, each with why

    def message(self) -> str:
        """One line for a person (the CLI's stderr, the GUI's status bar): what came back and what did not."""
        runs, values = _count(self.runs, "run"), _count(self.values, "logged value")
        if self.kept_as is not None:
            text = (f"the run store {self.database} was damaged ({self.reason}) and rebuilt from the run folders: "
                    f"{runs} and {values} recovered")
        elif self.reason == MISSING:
            text = f"the run store {self.database} was missing and was rebuilt from the run folders: {runs} and " \
                   f"{values} recovered"
        else:
            text = f"the run store {self.database} did not list {runs} whose folders exist; they were added back " \
                   f"with {values}"
        if self.skipped_lines:
            text += (f"; {_count(self.skipped_lines, 'unreadable metrics.csv line')} skipped, one value each "
                     f"({_named(self.skipped_examples, self.skipped_lines)})")
        if self.skipped_runs:
            text += (f"; {_count(len(self.skipped_runs), 'folder')} could not be read "
                     f"({_named(self.skipped_runs, len(self.skipped_runs))})")
        if self.kept_as is not None:
            text += f"; the damaged file is kept as {self.kept_as}"
        return text


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' if n != 1 else ''}"


def _named(examples: tuple[str, ...], total: int) -> str:
    return "; ".join(examples[:MAX_NAMED]) + (", …" if total > min(len(examples), MAX_NAMED) else "")


MISSING = "it was missing"
MAX_NAMED = 3  # skipped lines and folders named in a Recovery's message


# called with every Recovery this process makes (the CLI prints it on stderr; the GUI reads RunStore.recovery)
RECOVERY_LISTENERS: list[Callable[[Recovery], None]] = []


def _has_runs(runs_dir: Path) -> bool:
    return runs_dir.is_dir() and any(layout.is_run_dir(p) for p in runs_dir.iterdir())


def connect(path: Path, runs_dir: Path, recovered: list[Recovery] | None = None,
            reconcile: bool = True) -> sqlite3.Connection:
    """The store's database, migrated, listing every run folder of ``runs_dir``. A damaged one (not a database,
    malformed, or emptied to zero bytes while run folders exist) is moved aside and rebuilt from the folders; a
    missing one is rebuilt; with ``reconcile``, folders a sound one does not list are added to it. Each of these
    makes a Recovery, appended to ``recovered`` and given to every ``RECOVERY_LISTENERS``."""
    if path.is_dir():
        raise StoreError(f"the run store {path} is a folder, not a database; move it away (Studio makes a new one)")
    reason = ""
    existed = path.is_file()
    db: sqlite3.Connection | None = None
    try:
        if existed and path.stat().st_size == 0 and _has_runs(runs_dir):
            reason = "the file is empty"  # SQLite would take it for a new database and every run would vanish
        else:
            db = _open(path)
    except sqlite3.OperationalError as err:
        raise StoreError(describe_sqlite(err, path)) from None
    except sqlite3.DatabaseError as err:  # not a database, or a malformed one
        reason = str(err)
    aside = None
    try:
        if db is None:
            aside = move_aside(path)
            db = _open(path)
        if aside is None and not reconcile:
            return db
        rebuilt = rebuild(db, runs_dir, aside, reason=reason or (MISSING if not existed else "found when opened"))
    except sqlite3.Error as again:
        if db is not None:
            db.close()
        raise StoreError(describe_sqlite(again, path)) from None
    if aside is not None or rebuilt.runs:
        recovery = Recovery(path, aside, reason or (MISSING if not existed else "found when opened"),
                            rebuilt.runs, rebuilt.values, rebuilt.skipped_lines, tuple(rebuilt.skipped_examples),
                            tuple(rebuilt.skipped_runs))
        if recovered is not None:
            recovered.append(recovery)
        for listener in RECOVERY_LISTENERS:
            listener(recovery)
    return db


def move_aside(path: Path) -> Path:
    """Rename the damaged database (and its WAL files) to ``<name>.corrupt-<time>``; returns the new path."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        try:
            src.rename(f"{aside}{suffix}")
        except FileNotFoundError:  # another process got there first, or no WAL
            pass
        except OSError as err:
            raise StoreError(f"the run store {path} is damaged and cannot be moved aside: {err.strerror}") from None
    return aside


@dataclass
class Rebuilt:
    """What :func:`rebuild` registered, and what it could not read."""

    runs: int = 0
    values: int = 0
    skipped_lines: int = 0
    skipped_examples: list[str] = field(default_factory=list)
    skipped_runs: list[str] = field(default_factory=list)


def run_folders(runs_dir: Path, skip: set[str] | frozenset[str] = frozenset()) -> list[Path]:
    """The run folders of ``runs_dir`` in name order, but those named in ``skip`` (a hidden one, such as a run being
    deleted, is not one). Only the names not skipped are looked into: a sound store's open costs one listing."""
    try:
        with os.scandir(runs_dir) as entries:  # names only: no Path made for the folders the store lists
            names = [e.name for e in entries if e.name not in skip and not e.name.startswith(".")]
    except OSError:
        return []
    return [runs_dir / n for n in sorted(names) if layout.is_run_dir(runs_dir / n)]


def rebuild(db: sqlite3.Connection, runs_dir: Path, damaged: Path | None, reason: str) -> Rebuilt:
    """Register every run folder ``db`` does not list (from its config.toml and run.json) with its metric rows
    from its ``metrics.csv`` (core/runs/metric_log.py); for a run without one (older runs), copy the rows that can
    still be read from ``damaged``. A folder that cannot be read costs that folder only, a line that cannot be read
    that line only; both are counted and named in the result."""
    listed = {row[0] for row in db.execute("SELECT id FROM runs")}
    out = Rebuilt()
    salvage: set[str] = set()
    for folder in run_folders(runs_dir, skip=listed):
        try:
            added, values = _register(db, folder, damaged, reason, out)
        except sqlite3.Error:
            raise
        except (OSError, UnicodeDecodeError, ValueError) as err:
            out.skipped_runs.append(f"{folder.name}: {getattr(err, 'strerror', None) or err}")
            continue
        if added and values is None:
            salvage.add(folder.name)
        out.runs += added
        out.values += values or 0
    if damaged is not None:
        out.values += _salvage_metrics(db, damaged, salvage)
    return out


def _register(db: sqlite3.Connection, folder: Path, damaged: Path | None, reason: str,
              out: Rebuilt) -> tuple[int, int | None]:
    """Register one run folder unless another process just did: (1 if it was added, its metric values or None
    when it has no metrics.csv)."""
    from studio.core.runs import metric_log
    from studio.core.runs.record import read_record

    config = layout.config_path(folder).read_text(encoding="utf-8")
    rec = read_record(folder)
    final = layout.final_path(folder).exists()
    status = str(rec.get("status") or (JobState.FINISHED.value if final else JobState.INTERRUPTED.value))
    if status in (JobState.RUNNING, JobState.PAUSED, JobState.QUEUED):
        status = JobState.INTERRUPTED.value
    message = str(rec.get("message") or "")
    why = f"after {damaged.name} was found damaged ({reason})" if damaged is not None else f"({reason})"
    note = f"recovered from its folder {why}"
    created = float(rec.get("created") or folder.stat().st_mtime)
    record = metric_log.read_checked(folder)
    summary = rec.get("summary") if isinstance(rec.get("summary"), dict) else {}
    with db:
        added = db.execute("INSERT OR IGNORE INTO runs (id, name, created, updated, status, config, summary, "
                           "message, dir) VALUES (?,?,?,?,?,?,?,?,?)",
                           (folder.name, str(rec.get("name") or folder.name), created, time.time(), status, config,
                            json.dumps(summary), f"{message} [{note}]".strip(), str(folder))).rowcount
        if added:  # the settings: the config's, and a run Studio did not train keeps its script's beside them
            db.executemany("INSERT OR IGNORE INTO params VALUES (?,?,?)",
                           [(folder.name, k, json.dumps(v)) for k, v in _settings(folder, config).items()])
        tags = rec.get("tags")
        if added and isinstance(tags, list):  # mirrored in run.json by RunStore.add_tags/remove_tags
            db.executemany("INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?,?)",
                           [(folder.name, str(t)) for t in tags])
        if added and record is not None:  # a run another process registered already has its rows
            db.executemany("INSERT INTO metrics (run_id, step, name, value, wall) VALUES (?,?,?,?,?)",
                           [(folder.name, *row) for row in record.rows])
    if not added:
        return 0, 0
    if record is None:
        return 1, None
    out.skipped_lines += record.skipped
    for example in record.examples:
        if len(out.skipped_examples) < MAX_NAMED:
            out.skipped_examples.append(f"run {folder.name} metrics.csv {example}")
    return 1, len(record.rows)


def _settings(folder: Path, config: str) -> dict[str, Any]:
    """A run folder's settings as ``section.key`` params: its config.toml's, then (a run Studio did not train)
    the script's from tracked.json (core/runs/tracked.py)."""
    import tomllib

    def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in d.items():
            out.update(flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {f"{prefix}{key}": value})
        return out

    try:
        settings = flat(tomllib.loads(config))
    except tomllib.TOMLDecodeError:
        settings = {}
    try:
        tracked = json.loads(layout.tracked_path(folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tracked = {}
    if isinstance(tracked, dict) and isinstance(tracked.get("settings"), dict):
        settings.update(tracked["settings"])
    return settings


def _salvage_metrics(db: sqlite3.Connection, damaged: Path, runs: set[str]) -> int:
    """Copy the metric rows of ``runs`` still readable from the damaged file (stops at the first unreadable
    page); returns how many."""
    if not runs:
        return 0
    try:
        old = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    batch: list[tuple] = []
    copied = 0
    try:
        rows = old.execute("SELECT run_id, step, name, value, wall FROM metrics")
        for row in rows:
            if row[0] in runs:
                batch.append(row)
            if len(batch) >= 10_000:
                with db:
                    db.executemany("INSERT INTO metrics VALUES (?,?,?,?,?)", batch)
                copied += len(batch)
                batch = []
    except sqlite3.Error:
        pass
    finally:
        old.close()
    if batch:
        with db:
            db.executemany("INSERT INTO metrics VALUES (?,?,?,?,?)", batch)
        copied += len(batch)
    return copied
