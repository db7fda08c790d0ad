"""The run store: one directory per run (config.toml, run.json, checkpoints/, landscapes/) and one SQLite
database (runs, params, metrics) in WAL mode, written by rank 0 and read by the GUI and the CLI.

A run whose processes are all gone while it still says running or paused (the whole group was killed) is
settled as ``interrupted`` the next time the store is read: its rank pids (with start times, so a reused
pid does not count) and rank 0's heartbeat are recorded while it runs. Opening, migrations and recovery
of a damaged database live in core/runs/db.py.
"""

from __future__ import annotations

import builtins
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.config.external import is_external
from studio.core.contracts import layout
from studio.core.contracts.progress import ENDED, STATES  # noqa: F401 - ENDED: what other modules read here
from studio.core.contracts.runs import RunListing, RunSummary
from studio.core.errors import ConfigError, StoreError
from studio.core.host import procs
from studio.core.host.paths import studio_home
from studio.core.runs import lineage_record, metric_log
from studio.core.runs.db import Recovery, connect, connect_readonly, describe_sqlite
from studio.core.runs.record import write_record
from studio.core.runs.run_lock import RunLock
from studio.core.vocab import JobState

STATUSES = STATES  # a run's status is a job state (core/contracts/progress.py)
# with a checkpoint: `studio train --resume`
RESUMABLE = (JobState.STOPPED, JobState.INTERRUPTED, JobState.FINISHED, JobState.FAILED, JobState.PRUNED)
LIVE = (JobState.RUNNING, JobState.PAUSED)
STALE_S = 60.0  # a live run with no known processes and no heartbeat for this long is interrupted (rank 0
# beats every 10 s from a thread of its own: engine/training/worker.py StoreHeartbeat)


@dataclass
class RunInfo:
    id: str
    name: str
    created: float
    updated: float
    status: str
    config: str
    dir: Path
    summary: RunSummary = field(default_factory=lambda: RunSummary())
    message: str = ""
    heartbeat: float = 0.0
    tags: builtins.list[str] = field(default_factory=builtins.list)  # a person's tags, sorted

    def to_json(self) -> RunListing:
        ckpt = self.last_checkpoint
        return {"run_id": self.id, "name": self.name, "status": self.status, "created": self.created,
                "updated": self.updated, "dir": str(self.dir), "message": self.message,
                "last_checkpoint": str(ckpt) if ckpt else None, "tags": builtins.list(self.tags), **self.summary}

    @property
    def last_checkpoint(self) -> Path | None:
        """The newest ``checkpoints/step_*.pt`` (by step), or None."""
        return layout.last_checkpoint(self.dir)

    @property
    def resumable(self) -> bool:
        """Ended with a checkpoint, and trained by Studio (a tracked or attached run cannot be resumed here)."""
        return self.status in RESUMABLE and self.last_checkpoint is not None and not is_external(self.run_config)

    @property
    def run_config(self) -> RunConfig:
        return RunConfig.from_toml(self.config, self.dir)  # a user file's copy is named relative to the run


def flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in d.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@dataclass
class Curve:
    """One metric of one run at full resolution: ``steps`` (int64), ``values`` and ``walls`` (float64, seconds
    since the epoch; NaN where unknown), in step order."""

    steps: Any
    values: Any
    walls: Any

    def __len__(self) -> int:
        return len(self.steps)


class RunStore:
    """Runs on disk and in SQLite. Safe to open from several processes at once, and to use from several
    threads: each thread gets its own connection (a connection has one owner; SQLite's WAL does the rest)."""

    def __init__(self, home: str | Path | None = None, read_only: bool = False) -> None:
        """``read_only``: watch a store that others write (another machine, a cluster job): the database is
        opened ``mode=ro`` and nothing in the store is ever changed (docs/user-guide/clusters.md)."""
        self.home = Path(home) if home else studio_home()
        self.runs_dir = layout.runs_dir(self.home)
        self.db_path = layout.database_path(self.home)
        self.read_only = read_only
        self._local = threading.local()
        self._recovered: builtins.list[Recovery] = []
        if not read_only:
            try:
                self.runs_dir.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(f"cannot use the run store {self.home}: {err.strerror}; "
                                 "set STUDIO_HOME to a folder you can write") from None
        # open now: a store that cannot be used says so at once, and one that lost runs gets them back
        self._local.db = self._connect(reconcile=True)

    def _connect(self, reconcile: bool = False) -> sqlite3.Connection:
        """A connection; ``reconcile``: also register run folders the database does not list (once per store)."""
        return (connect_readonly(self.db_path) if self.read_only
                else connect(self.db_path, self.runs_dir, self._recovered, reconcile=reconcile))

    @property
    def recovery(self) -> Recovery | None:
        """The runs this store registered from their folders when it opened: its database was damaged (moved
        aside), missing, or lacked some (None: it listed every folder)."""
        return self._recovered[0] if self._recovered else None

    @property
    def _db(self) -> sqlite3.Connection:
        """This thread's connection (opened on its first use)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
        return db

    def close(self) -> None:
        """Close this thread's connection (another thread's closes with that thread)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    def _refuse_if_read_only(self, what: str) -> None:
        if self.read_only:
            raise StoreError(f"cannot {what}: the run store {self.home} is open read-only, to watch it")

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """A transaction whose SQLite/OS failures become one StoreError line."""
        self._refuse_if_read_only(what)
        try:
            with self._db:
                yield
        except sqlite3.Error as err:
            raise StoreError(f"cannot {what}: {describe_sqlite(err, self.db_path)}") from None
        except OSError as err:
            raise StoreError(f"cannot {what}: {err.strerror} ({err.filename or self.home})") from None

    # --- writing ---------------------------------------------------------------------------
    def new_run_id(self) -> str:
        """A fresh id: the local time to the second and 8 random hex digits (collisions are retried)."""
        return time.strftime("%Y%m%d-%H%M%S", time.localtime()) + "-" + secrets.token_hex(4)

    def create_run(self, config: RunConfig, name: str = "", run_id: str | None = None) -> RunInfo:
        """Register a new run (status queued) and write its directory with config.toml.

        The id (``run_id``, or a fresh one) is claimed by creating its folder (``mkdir`` fails if it exists),
        so ids never collide however fast runs are created. On any failure (a full disk) nothing is left
        behind. Without a ``name`` the run is named by the naming rule (``core/runs/names.py``), once."""
        import shutil

        self._refuse_if_read_only("create a run")
        text = config.to_toml()
        if not name:  # the naming rule's name, kept from now on (core/runs/names.py)
            from studio.core.runs.names import fresh_name

            taken = [n for (n,) in self._db.execute("SELECT name FROM runs").fetchall()]
            name = fresh_name(flatten(config.to_dict()), taken)
        given = run_id
        for _ in range(100):
            run_id = given or self.new_run_id()
            run_dir = self.runs_dir / run_id
            try:
                run_dir.mkdir(parents=True)
                break
            except FileExistsError:
                if given:
                    raise StoreError(f"a run {given} already exists in {self.runs_dir}") from None
                continue
            except OSError as err:
                raise StoreError(f"cannot create a run in {self.runs_dir}: {err.strerror}") from None
        else:  # pragma: no cover - 100 collisions of 32 random bits
            raise StoreError(f"cannot find a free run id in {self.runs_dir}")
        now = time.time()
        staged = run_dir / f".{layout.CONFIG}.new"
        try:
            layout.checkpoints_dir(run_dir).mkdir()
            text, code_settings = self._copy_code(run_dir, config, text)
            staged.write_text(text, encoding="utf-8")
            with self._writing("create the run"):
                self._db.execute(
                    "INSERT INTO runs (id, name, created, updated, status, config, dir) VALUES (?,?,?,?,?,?,?)",
                    (run_id, name, now, now, JobState.QUEUED.value, text, str(run_dir)),
                )
                self._db.executemany(
                    "INSERT INTO params VALUES (?,?,?)",
                    [(run_id, k, json.dumps(v)) for k, v in {**flatten(config.to_dict()), **code_settings}.items()],
                )
            # a folder is a run once it has config.toml (core/runs/db.py registers such folders the database lacks):
            # it gets it only now that the run is in the database, so no other process registers it half-made
            os.replace(staged, layout.config_path(run_dir))
        except OSError as err:
            shutil.rmtree(run_dir, ignore_errors=True)
            raise StoreError(f"cannot create the run in {self.runs_dir}: {err.strerror}") from None
        except StoreError:
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
        write_record(run_dir, id=run_id, name=name, created=now, status=JobState.QUEUED.value)
        return self.get(run_id)

    def _copy_code(self, run_dir: Path, config: RunConfig, text: str) -> tuple[str, dict[str, str]]:
        """The user's own files of ``config`` copied into the run folder (core/usercode/run_copy.py): the config
        text naming the copies, and the code hashes to record as settings (``model.code``)."""
        from studio.core.usercode.run_copy import copy_code, user_files
        from studio.core.usercode.trust import trust

        if not user_files(config.to_dict()):
            return text, {}
        import tomli_w

        named, settings, trusted = copy_code(run_dir, config.to_dict())
        trust(trusted)  # the user's own file, trained by them: its copy may run again (the user's list, studio_home)
        return tomli_w.dumps(named), settings

    def update_config(self, run_id: str, config: RunConfig) -> None:
        """Replace a run's config (resuming with more epochs): the database, its params and config.toml."""
        from studio.core.usercode.run_copy import relative_to_run

        info = self.get(run_id)
        import tomli_w

        text = tomli_w.dumps(relative_to_run(config.to_dict(), info.dir))
        with self._writing("update the run's config"):
            self._db.execute("UPDATE runs SET config=? WHERE id=?", (text, run_id))
            self._db.executemany("INSERT OR REPLACE INTO params VALUES (?,?,?)",
                                 [(run_id, k, json.dumps(v)) for k, v in flatten(config.to_dict()).items()])
        path = layout.config_path(info.dir)
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:
            raise StoreError(f"cannot write {path}: {err.strerror}") from None

    def record_settings(self, run_id: str, settings: dict[str, Any]) -> None:
        """Add settings the launcher decided (``hardware.cpu_threads``) to the run's params, beside its config's:
        ``studio compare`` and the run names see them (core/runs/settings_diff.RECORDED_KEYS)."""
        with self._writing("record the run's settings"):
            self._db.executemany("INSERT OR REPLACE INTO params VALUES (?,?,?)",
                                 [(run_id, k, json.dumps(v)) for k, v in settings.items()])

    def set_status(self, run_id: str, status: str, message: str | None = None,
                   summary: RunSummary | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(status)
        with self._writing("record the run's status"):
            self._db.execute("UPDATE runs SET status=?, updated=? WHERE id=?", (status, time.time(), run_id))
            if message is not None:
                self._db.execute("UPDATE runs SET message=? WHERE id=?", (message, run_id))
            if summary is not None:
                old = json.loads(self._db.execute("SELECT summary FROM runs WHERE id=?", (run_id,)).fetchone()[0])
                self._db.execute("UPDATE runs SET summary=? WHERE id=?", (json.dumps({**old, **summary}), run_id))
        row = self._db.execute("SELECT dir, message, summary FROM runs WHERE id=?", (run_id,)).fetchone()
        if row:
            write_record(Path(row[0]), status=status, message=row[1] or "", summary=json.loads(row[2] or "{}"))

    def set_procs(self, run_id: str, pids: list[int], semaphores: list[str] | None = None) -> None:
        """Record the run's rank processes (and the launcher's queue semaphores, freed if it is interrupted)."""
        procs_json = json.dumps({"host": procs.host(), "pids": [procs.identity(p) for p in pids],
                                 "sems": semaphores or []})
        with self._writing("record the run's processes"):
            self._db.execute("UPDATE runs SET procs=?, heartbeat=? WHERE id=?", (procs_json, time.time(), run_id))

    def add_procs(self, run_id: str, pids: list[int]) -> None:
        """Add processes to the run's recorded ones, keeping the others' (several scripts logging to one run, each
        adding its own: the run is settled as interrupted only when all of them are gone)."""
        mine = [procs.identity(p) for p in pids]
        with self._writing("record the run's processes"):
            # the write first: the read below is then inside the write transaction, so two adders never race
            self._db.execute("UPDATE runs SET heartbeat=? WHERE id=?", (time.time(), run_id))
            row = self._db.execute("SELECT procs FROM runs WHERE id=?", (run_id,)).fetchone()
            try:
                old = json.loads(row[0]) if row and row[0] else {}
            except ValueError:
                old = {}
            have = old.get("pids", []) if old.get("host") == procs.host() else []
            new = {"host": procs.host(), "pids": have + [m for m in mine if m not in have], "sems": old.get("sems", [])}
            self._db.execute("UPDATE runs SET procs=? WHERE id=?", (json.dumps(new), run_id))

    def beat(self, run_id: str) -> None:
        """Rank 0's sign of life (every few seconds while a run trains)."""
        with self._writing("record the run's heartbeat"):
            self._db.execute("UPDATE runs SET heartbeat=? WHERE id=?", (time.time(), run_id))

    def truncate_metrics(self, run_id: str, after_step: int) -> None:
        """Drop a run's metric rows past ``after_step`` (resuming from an earlier checkpoint)."""
        from studio.core.runs import curve_chunks

        with self._writing("trim the run's metrics"):
            self._db.execute("DELETE FROM metrics WHERE run_id=? AND step>?", (run_id, after_step))
            self._db.execute("DELETE FROM curve_cache WHERE run_id=?", (run_id,))  # its cache is stale now
            curve_chunks.forget(self._db, run_id)
            curve_chunks.convert_run(self._db, run_id)  # the rows kept, chunked again
            metric_log.drop_after(layout.run_path(self.home, run_id), after_step)

    def log_metrics(self, run_id: str, rows: Iterable[tuple[int, str, float, float]]) -> None:
        """Append ``(step, name, value, wall_time)`` rows in one transaction, and to the run folder's own record
        (``metrics.csv``, core/runs/metric_log.py), from which a damaged database gets them back."""
        from studio.core.runs import curve_chunks

        batch = [(int(s), n, float(v), float(w)) for s, n, v, w in rows]
        with self._writing("record metrics"):
            # the write lock first: ``ensure`` reads the run's rows and chunks, then replaces its chunks, and two
            # processes logging into one run (ranks) must not commit between that read and that write (a read
            # outside the transaction once dropped the other rank's chunk, leaving its curve out of the pack)
            self._db.execute("BEGIN IMMEDIATE")
            curve_chunks.ensure(self._db, run_id)
            self._db.executemany("INSERT INTO metrics (run_id, step, name, value, wall) VALUES (?,?,?,?,?)",
                                 [(run_id, *row) for row in batch])
            if batch:  # the same points as a chunk, committed with them (core/runs/curve_chunks.py)
                upto = self._db.execute("SELECT last_insert_rowid()").fetchone()[0]
                curve_chunks.append(self._db, run_id, batch, upto)
            # a packed cache of this run (core/runs/curve_cache.py) now has rows after it: readers merge them in
            self._db.execute("UPDATE curve_cache SET appended=1 WHERE run_id=? AND appended=0", (run_id,))
            metric_log.append(layout.run_path(self.home, run_id), batch)

    def rename(self, run_id: str, name: str) -> None:
        """A person's name for the run (shown instead of the one made from what differs)."""
        self.get(run_id)
        with self._db:
            self._db.execute("UPDATE runs SET name=? WHERE id=?", (name.strip(), run_id))

    def set_notes(self, run_id: str, text: str) -> None:
        self.get(run_id)
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO notes (run_id, text) VALUES (?, ?)", (run_id, text))

    def notes(self) -> dict[str, str]:
        """Every run's notes (runs without notes are left out)."""
        return {r: t for r, t in self._db.execute("SELECT run_id, text FROM notes").fetchall() if t}

    def add_tags(self, run_ids: Iterable[str], tags: Iterable[str]) -> None:
        """Tag runs (a tag is one word; tagging twice is no change). ConfigError for an unknown run or a bad tag."""
        self._change_tags(run_ids, tags, "INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?,?)", "tag the runs")

    def remove_tags(self, run_ids: Iterable[str], tags: Iterable[str]) -> None:
        """Take tags off runs (a tag a run does not have is no change)."""
        self._change_tags(run_ids, tags, "DELETE FROM tags WHERE run_id=? AND tag=?", "untag the runs")

    def _change_tags(self, run_ids: Iterable[str], tags: Iterable[str], sql: str, what: str) -> None:
        ids = builtins.list(dict.fromkeys(run_ids))
        words = builtins.list(dict.fromkeys(check_tag(t) for t in tags))
        infos = [self.get(r) for r in ids]  # an unknown run: ConfigError before anything changes
        with self._writing(what):
            self._db.executemany(sql, [(r, t) for r in ids for t in words])
        now = self.tags(ids)
        for info in infos:  # mirrored in run.json: a rebuilt database keeps them (core/runs/db.py)
            write_record(info.dir, tags=now.get(info.id, []))

    def tags(self, run_ids: Iterable[str] | None = None) -> dict[str, builtins.list[str]]:
        """Every run's tags (``run_id → sorted tags``; untagged runs left out) in one query; ``run_ids`` limits it."""
        sql, args = "SELECT run_id, tag FROM tags", []
        if run_ids is not None:
            args = builtins.list(run_ids)
            sql += f" WHERE run_id IN ({','.join('?' * len(args))})"
        out: dict[str, builtins.list[str]] = {}
        try:
            rows = self._db.execute(sql + " ORDER BY run_id, tag", args).fetchall()
        except sqlite3.OperationalError as err:  # a watched (read-only) store from before tags: none
            if "no such table" in str(err):
                return out
            raise
        for run_id, tag in rows:
            out.setdefault(run_id, []).append(tag)
        return out

    def metric_range(self, name: str, run_ids: Iterable[str]) -> dict[str, tuple[float, float, int]]:
        """(lowest, highest, last step) of the metric ``name`` for each of ``run_ids`` that logged it, in one
        query (the class board ranks a class's runs by it while they train)."""
        ids = builtins.list(run_ids)
        if not ids:
            return {}
        rows = self._db.execute(f"SELECT run_id, MIN(value), MAX(value), MAX(step) FROM metrics WHERE name=? AND "
                                f"run_id IN ({','.join('?' * len(ids))}) GROUP BY run_id", [name, *ids]).fetchall()
        return {r: (float(lo), float(hi), int(step)) for r, lo, hi, step in rows}

    def descendants(self, run_id: str) -> builtins.list[RunInfo]:
        """The runs built on ``run_id``: their ``model.init_from`` or ``data.vocab_from`` names it (by its id, or
        a unique part of it as ``resolve`` takes), oldest first."""
        rows = self._db.execute("SELECT run_id, value FROM params WHERE key IN (?, ?)",
                                tuple(f"{s}.{k}" for s, k in lineage_record.PARENT_KEYS)).fetchall()
        found = set()
        for child, value in rows:
            try:
                named = str(json.loads(value) or "")
            except ValueError:
                continue
            if child != run_id and _names(named, run_id):
                found.add(child)
        infos = [self._info(r) for r in self._db.execute(
            f"SELECT {self._COLS} FROM runs WHERE id IN ({','.join('?' * len(found))}) ORDER BY created",
            builtins.list(found)).fetchall()] if found else []
        return infos

    def delete(self, run_id: str) -> builtins.list[RunInfo]:
        """Delete a run that no process trains: its folder and its rows. Returns the runs built on it, which keep
        working: each keeps what it needs of it in its own folder (core/runs/lineage_record.py), kept here for one
        that did not yet."""
        import shutil

        self._refuse_if_read_only("delete the run")
        info = self.get(run_id)  # a run whose processes are gone is settled as interrupted here
        if info.status in LIVE or RunLock(info.dir).held_elsewhere():
            raise ConfigError(f"run {info.id} is being trained by another process ({info.status}); stop it "
                              "first, then delete it")
        children = self.descendants(info.id)
        for child in children:
            try:
                vocab_from = str(child.run_config.data.params.get("vocab_from") or "")
            except ConfigError:  # a config that no longer reads: nothing to keep for it
                continue
            if _names(vocab_from, info.id):
                lineage_record.keep(child.dir, info.id, info.run_config)
        # hidden first (a hidden folder is no run: nothing registers it again from its folder), then forgotten
        hidden = info.dir.with_name(f".deleting-{info.dir.name}")
        try:
            info.dir.rename(hidden)
        except FileNotFoundError:
            hidden = info.dir
        except OSError as err:
            raise StoreError(f"cannot delete run {info.id}: {err.strerror} ({info.dir})") from None
        from studio.core.runs import curve_chunks

        with self._db:
            for table, col in (("metrics", "run_id"), ("params", "run_id"), ("notes", "run_id"), ("tags", "run_id"),
                               ("runs", "id")):
                self._db.execute(f"DELETE FROM {table} WHERE {col}=?", (run_id,))
            self._db.execute("DELETE FROM curve_cache WHERE run_id=?", (run_id,))  # its cache is stale now
            curve_chunks.forget(self._db, run_id)
        shutil.rmtree(hidden, ignore_errors=True)
        return children

    # --- reading ---------------------------------------------------------------------------
    def _info(self, row: tuple) -> RunInfo:
        rid, name, created, updated, status, config, summary, message, rdir, heartbeat, procs_json = row
        info = RunInfo(rid, name, created, updated, status, config, Path(rdir), json.loads(summary or "{}"),
                       message or "", heartbeat or 0.0)
        if (status in LIVE or (status == JobState.QUEUED and procs_json)) and self._gone(info, procs_json):
            self._settle_interrupted(info, procs_json)
        return info

    _COLS = "id, name, created, updated, status, config, summary, message, dir, heartbeat, procs"

    @staticmethod
    def _gone(info: RunInfo, procs_json: str | None) -> bool:
        """A live-looking run none of whose processes runs (or, off this host, silent for STALE_S)."""
        try:
            recorded = json.loads(procs_json) if procs_json else {}
        except ValueError:
            recorded = {}
        if recorded.get("pids") and recorded.get("host") == procs.host():
            return not any(procs.alive(p) for p in recorded["pids"])
        if info.status == JobState.QUEUED:  # waiting in the run queue: no processes yet
            return False
        return time.time() - max(info.heartbeat, info.updated) > STALE_S

    def _settle_interrupted(self, info: RunInfo, procs_json: str | None) -> None:
        ckpt = info.last_checkpoint
        after = (f"; its last checkpoint is {ckpt.name}: `studio train --resume {info.id}` continues it" if ckpt
                 else "; it saved no checkpoint to resume from")
        info.status = JobState.INTERRUPTED.value
        info.message = ("interrupted: its training processes ended without a word (killed, or the machine "
                        f"stopped){after}")
        if self.read_only:  # shown as interrupted; the store is left as it is
            return
        try:
            with self._db:
                self._db.execute("UPDATE runs SET status='interrupted', message=?, updated=? WHERE id=? AND "
                                 "status IN ('queued', 'running', 'paused')", (info.message, time.time(), info.id))
            write_record(info.dir, status=JobState.INTERRUPTED.value, message=info.message)
        except sqlite3.Error:  # a read-only store still shows the run as interrupted
            pass
        try:
            sems = json.loads(procs_json or "{}").get("sems", [])
        except ValueError:
            sems = []
        _unlink_semaphores(sems)

    def list(self) -> list[RunInfo]:
        """All runs, newest first."""
        rows = self._db.execute(f"SELECT {self._COLS} FROM runs ORDER BY created DESC").fetchall()
        tags = self.tags()
        infos = [self._info(r) for r in rows]
        for info in infos:
            info.tags = tags.get(info.id, [])
        return infos

    def get(self, run_id: str) -> RunInfo:
        row = self._db.execute(f"SELECT {self._COLS} FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise ConfigError(f"no run {run_id!r} in {self.db_path}; `studio runs` lists them")
        info = self._info(row)
        info.tags = self.tags([run_id]).get(run_id, [])
        return info

    def resolve(self, id_or_dir: str) -> RunInfo:
        """A run by id, by unique id prefix or suffix (``…-2c47``), or by its directory."""
        path = Path(id_or_dir)
        if is_run_dir(path):
            return self.get(path.resolve().name)
        rows = self._db.execute("SELECT id FROM runs WHERE id LIKE ? OR id LIKE ?",
                                (id_or_dir + "%", "%" + id_or_dir)).fetchall()
        if len(rows) == 1:
            return self.get(rows[0][0])
        if len(rows) > 1:
            raise ConfigError(f"{id_or_dir!r} matches {len(rows)} runs; give more of the id")
        return self.get(id_or_dir)

    def metrics(self, run_id: str, since_rowid: int = 0) -> dict[str, tuple[builtins.list[int], builtins.list[float]]]:
        """Every metric of a run as ``name -> (steps, values)``, in step order."""
        out: dict[str, tuple[list[int], list[float]]] = {}
        rows = self._db.execute(
            "SELECT name, step, value FROM metrics WHERE run_id=? AND rowid>? ORDER BY name, step, rowid",
            (run_id, since_rowid),
        )
        for name, step, value in rows:
            steps, values = out.setdefault(name, ([], []))
            steps.append(step)
            values.append(value)
        return out

    def curves(self, run_ids: Iterable[str], names: Iterable[str] | None = None) -> dict[str, dict[str, Curve]]:
        """Full-resolution curves ``run_id → name → Curve`` (steps, values, walls as numpy arrays, step order) for
        a selection; ``names`` limits the metrics read. Ended runs come from the packed curve cache (made here
        the first time, unless the store is read-only), live ones from the chunks written as their values came
        (core/runs/curve_chunks.py; a run of an old store is converted here the first time), anything after a
        pack from chunks too (or rows, for a run not converted); either way exactly what the plain row query
        gives (core/runs/curve_cache.py). Safe to call from a worker
        thread (each thread has its own connection). Runs with no rows are present with no curves."""
        return self._curves(run_ids, names, overview=False)

    def curve_overviews(self, run_ids: Iterable[str],
                        names: Iterable[str] | None = None) -> dict[str, dict[str, Curve]]:
        """Like ``curves``, each curve min/max-decimated over its whole step range to
        ``curve_cache.OVERVIEW_COLUMNS`` pixel columns (core/maths/decimate.py: each keeps its first, lowest,
        highest and last point), for a first draw: stored with an ended run's cache, computed for the others."""
        return self._curves(run_ids, names, overview=True)

    def _curves(self, run_ids: Iterable[str], names: Iterable[str] | None,
                overview: bool) -> dict[str, dict[str, Curve]]:
        from studio.core.runs import curve_cache, curve_chunks

        ids = builtins.list(dict.fromkeys(run_ids))
        out: dict[str, dict[str, Curve]] = {r: {} for r in ids}
        if not ids:
            return out
        wanted = None if names is None else builtins.list(dict.fromkeys(names))
        db = self._db
        has_cache = curve_cache.exists(db)  # a read-only store over an old database has none
        has_chunks = has_cache and curve_chunks.exists(db)
        if has_chunks and not self.read_only:
            self._convert_lazily(ids)
        snapshot = not db.in_transaction
        if snapshot:  # one read snapshot: a writer appending or trimming meanwhile is seen entirely or not at all
            db.execute("BEGIN")
        try:
            upto, appended = curve_cache.cached_runs(db, ids) if has_cache else ({}, {})
            full: dict[tuple[str, str], curve_cache.Columns] = {}
            ready: dict[tuple[str, str], curve_cache.Columns] = {}  # stored overviews, as they are
            chunked = curve_chunks.chunked(db, ids) if has_chunks else set()
            if chunked:  # their pack (if any) and the chunks past it: no row read
                tails = curve_chunks.read(db, builtins.list(chunked), {r: upto[r] for r in chunked if r in upto},
                                          wanted)
                packed = [r for r in chunked if r in upto]
                moved = {key[0] for key in tails}
                if overview:  # a pack with nothing after it: its stored overview
                    ready = curve_cache.read(db, [r for r in packed if r not in moved], wanted, overview=True)
                cached = curve_cache.read(db, [r for r in packed if r in moved or not overview], wanted)
                for key in {*cached, *tails}:
                    full[key] = curve_cache.merge(cached.get(key), tails.get(key))
                upto = {r: u for r, u in upto.items() if r not in chunked}
                appended = {r: u for r, u in appended.items() if r not in chunked}
            plain = [r for r in ids if r not in upto and r not in chunked]
            if plain:
                sql, args = curve_cache.rows_query(plain, wanted)
                full.update(curve_cache.gather(db.execute(sql, args)))
            if upto:
                tails = curve_cache.tails(db, appended, wanted)
                moved = {key[0] for key in tails}  # rows came after their cache: read it whole and merge
                if overview:
                    ready = curve_cache.read(db, [r for r in upto if r not in moved], wanted, overview=True)
                cached = curve_cache.read(db, [r for r in upto if r in moved or not overview], wanted)
                for key in {*cached, *tails}:
                    full[key] = curve_cache.merge(cached.get(key), tails.get(key))
        finally:
            if snapshot:
                db.commit()
        for key, cols in full.items():
            ready[key] = curve_cache.overview(cols) if overview else cols
        for (run_id, name), cols in ready.items():
            out[run_id][name] = Curve(cols.steps, cols.values, cols.walls)
        return out

    def _convert_lazily(self, ids: builtins.list[str]) -> None:
        """Pack the ended runs among ``ids`` that have no pack, chunk the others not chunked yet (an old store's
        runs, read once as rows here), each waiting at most ``LAZY_WAIT_MS`` for another writer: it only saves
        time, the rows are read instead."""
        from studio.core.runs import curve_cache, curve_chunks

        db = self._db
        for run_id in curve_cache.uncached_ended(db, ids):
            try:
                curve_cache.build(db, run_id, wait_ms=curve_cache.LAZY_WAIT_MS, columns=_chunked_columns)
            except sqlite3.Error:
                pass
        done = curve_chunks.chunked(db, ids)
        for run_id in [r for r in ids if r not in done]:
            try:
                with self._lazy_write():
                    curve_chunks.convert_run(db, run_id)
            except sqlite3.Error:
                pass

    @contextmanager
    def _lazy_write(self) -> Iterator[None]:
        """A write transaction that gives up (``sqlite3.OperationalError``) after ``LAZY_WAIT_MS`` of waiting."""
        from studio.core.runs import curve_cache

        db = self._db
        old_wait = db.execute("PRAGMA busy_timeout").fetchone()[0]
        db.execute(f"PRAGMA busy_timeout={curve_cache.LAZY_WAIT_MS}")
        try:
            db.execute("BEGIN IMMEDIATE")
        finally:
            db.execute(f"PRAGMA busy_timeout={old_wait}")
        try:
            yield
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def convert_curves(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Convert an old store once, for a background thread: pack every ended run that has no pack, then chunk
        every run not chunked yet, one transaction per run, ``progress(done, total)`` after each; afterwards every
        run reads like a packed one. Returns the runs converted."""
        from studio.core.runs import curve_cache, curve_chunks

        self._refuse_if_read_only("convert the curve store")
        db = self._db
        ids = [r for (r,) in db.execute("SELECT id FROM runs")]
        try:
            unpacked = curve_cache.uncached_ended(db, ids) if ids else []
            todo = len(unpacked) + len(ids) - len(curve_chunks.chunked(db, ids))
            for i, run_id in enumerate(unpacked):
                curve_cache.build(db, run_id)
                if progress is not None:
                    progress(i + 1, todo)
            return len(unpacked) + curve_chunks.convert(
                db, ids, None if progress is None else lambda done, _n: progress(len(unpacked) + done, todo))
        except sqlite3.Error as err:
            raise StoreError(f"cannot convert the curves: {describe_sqlite(err, self.db_path)}") from None

    def write_curve_cache(self, run_id: str) -> bool:
        """Pack an ended run's curves into the curve cache (rank 0 does when the run ends). Returns whether it
        wrote one (not for a live run, nor one with no rows)."""
        from studio.core.runs import curve_cache

        self._refuse_if_read_only("write the curve cache")
        try:
            return curve_cache.build(self._db, run_id, columns=_chunked_columns)
        except sqlite3.Error as err:
            raise StoreError(f"cannot write the curve cache: {describe_sqlite(err, self.db_path)}") from None

    def metric_names_at(self, run_id: str, step: int) -> set[str]:
        """The names of the metrics the run logged at ``step``."""
        return {n for (n,) in self._db.execute("SELECT DISTINCT name FROM metrics WHERE run_id=? AND step=?",
                                               (run_id, step))}

    def metric_names(self) -> set[str]:
        """Every metric name any run logged (reads the whole metrics index: for a check, not a loop)."""
        return {n for (n,) in self._db.execute("SELECT DISTINCT name FROM metrics")}

    def max_metric_rowid(self) -> int:
        """The newest metric row's rowid in the whole store (one B-tree seek: where following starts)."""
        return self._db.execute("SELECT COALESCE(MAX(rowid), 0) FROM metrics").fetchone()[0]

    def recent_metric_rows(self, run_id: str, rowid: int) -> builtins.list[tuple[int, int, str, float, float]]:
        """The run's rows logged after ``rowid`` as ``(rowid, step, name, value, wall_time)``, for following live
        runs: ``rowid`` must be recent (from :meth:`max_metric_rowid`), since this walks every run's rows after it
        by rowid rather than this run's rows by index (a long run has tens of thousands; a second of logging has
        few)."""
        return self._db.execute("SELECT rowid, step, name, value, wall FROM metrics WHERE rowid>? AND +run_id=? "
                                "ORDER BY rowid", (rowid, run_id)).fetchall()

    def metric_rows_after(self, run_id: str, rowid: int) -> builtins.list[tuple[int, int, str, float, float]]:
        """The rows logged after ``rowid`` as ``(rowid, step, name, value, wall_time)`` (to follow a live run)."""
        return self._db.execute("SELECT rowid, step, name, value, wall FROM metrics WHERE run_id=? AND rowid>? "
                                "ORDER BY rowid", (run_id, rowid)).fetchall()

    def all_params(self) -> dict[str, dict[str, Any]]:
        """Every run's settings (``run_id → {section.key: value}``) in one query (the values parsed as one JSON
        array: 50,000 settings of 1,000 runs in one ``json.loads`` instead of 50,000)."""
        rows = self._db.execute("SELECT run_id, key, value FROM params").fetchall()
        try:
            values = json.loads("[" + ",".join(r[2] for r in rows) + "]")
        except ValueError:  # a value that is not JSON on its own: say which
            values = [json.loads(r[2]) for r in rows]
        out: dict[str, dict[str, Any]] = {}
        for (run_id, key, _), value in zip(rows, values, strict=True):
            out.setdefault(run_id, {})[key] = value
        return out

    def params_version(self) -> tuple[int, int]:
        """Changes whenever a setting is added, replaced or deleted (row count, newest row): whether a cached
        ``all_params`` is still current (the run list's names)."""
        count, newest = self._db.execute("SELECT count(*), COALESCE(max(rowid), 0) FROM params").fetchone()
        return int(count), int(newest)

    def params(self, run_id: str) -> dict[str, Any]:
        rows = self._db.execute("SELECT key, value FROM params WHERE run_id=?", (run_id,)).fetchall()
        return {k: json.loads(v) for k, v in rows}


def _chunked_columns(db: sqlite3.Connection, run_id: str) -> dict | None:
    """A chunked run's curves (its pack, if any, and the chunks past it: core/runs/curve_chunks.py), for packing it
    without reading its rows; None for a run not chunked."""
    from studio.core.runs import curve_cache, curve_chunks

    if not curve_chunks.exists(db) or not curve_chunks.chunked(db, [run_id]):
        return None
    upto = curve_cache.cached_runs(db, [run_id])[0]
    tails = curve_chunks.read(db, [run_id], upto, None)
    packed = curve_cache.read(db, list(upto), None)
    return {key: curve_cache.merge(packed.get(key), tails.get(key)) for key in {*packed, *tails}}


def _names(given: str, run_id: str) -> bool:
    """Whether a setting that names a run by id (a unique part of it, as ``RunStore.resolve`` takes) names
    ``run_id``."""
    return bool(given) and (run_id.startswith(given) or run_id.endswith(given))


def _unlink_semaphores(names: list[str]) -> None:
    """Free the POSIX semaphores of a launcher that was killed before it could (they stay in /dev/shm)."""
    if not names:
        return
    try:
        from _multiprocessing import sem_unlink  # type: ignore[import-not-found]  # CPython's C module, no stub
    except ImportError:  # pragma: no cover - Windows
        return
    for name in names:
        try:
            sem_unlink(name)
        except OSError:
            pass


def check_tag(tag: str) -> str:
    """A tag as stored: one word (no spaces or commas), at most 64 characters; ConfigError otherwise."""
    word = str(tag).strip()
    if not word or any(c.isspace() or c == "," for c in word) or len(word) > 64:
        raise ConfigError(f"{tag!r} is not a tag: a tag is one word of at most 64 characters (no spaces or commas)")
    return word


# --- what a folder is (the GUI's open_path and core/runs/open_target.py ask) ----------------------------------
is_run_dir = layout.is_run_dir  # a run's own folder: it holds the run's config.toml


def is_run_store(path: Path) -> bool:
    """A run store's home (``STUDIO_HOME``, a shared folder a cluster job records into): ``runs.db``, no config."""
    return path.is_dir() and layout.database_path(path).is_file() and not layout.config_path(path).exists()


def is_run_config(path: Path) -> bool:
    """A run's own ``config.toml`` (its folder has ``checkpoints/``), not a config file written by hand."""
    return path.is_file() and path.name == layout.CONFIG and layout.checkpoints_dir(path.parent).is_dir()
