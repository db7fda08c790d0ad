"""The run queue, kept in the run store's SQLite database so it outlives the GUI and any one scheduler.

A queued run is a normal run in ``runs`` (status ``queued``) plus a row in ``queue``:
``waiting`` → ``running`` (claimed by a scheduler, with the devices it was given) → ``done``, or
``waiting`` → ``cancelled`` (the run's status becomes ``cancelled``; it never starts). A running run is asked to
stop (``cancel``: it stops with a checkpoint) or to stop as *pruned* (``prune``: a hyperparameter search stopping a
bad trial early; the scheduler marks it ``pruned`` once it has stopped, and it can be resumed like a stopped run).

Starting exactly once: ``claim_next`` reads the devices in use, picks the next run that fits and marks it
``running`` inside one ``BEGIN IMMEDIATE`` transaction, so two schedulers racing (two GUIs, a GUI and a
``studio queue run``) serialise on SQLite's write lock and can never claim the same run or the same GPU.
A lease row (``queue_lease``: pid and heartbeat) lets a scheduler see that another one is already serving.

Devices: a CPU run takes one of ``Inventory.cpu_slots`` (1 by default: CPU runs go one at a time); a CUDA run
takes the GPUs in ``hardware.gpus`` if it lists them, else any ``hardware.processes`` free GPUs (one per
rank: one for a single-process run, several for DDP). Live runs started outside the queue (``studio train``, the
GUI's Train) count as using their devices, so a queued CPU run waits for an interactive one.
"""

from __future__ import annotations

import json
import sqlite3
import time
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from studio.core.config import RunConfig
from studio.core.contracts.runs import QueueEntryJSON
from studio.core.errors import ConfigError, StudioError
from studio.core.host import procs
from studio.core.runs.store import LIVE, RunInfo, RunStore
from studio.core.vocab import JobState

QUEUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS queue (
    run_id TEXT PRIMARY KEY, position INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'waiting',
    devices TEXT NOT NULL DEFAULT '[]', owner TEXT NOT NULL DEFAULT '', cancel INTEGER NOT NULL DEFAULT 0,
    added REAL, started REAL, ended REAL
);
CREATE TABLE IF NOT EXISTS queue_lease (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, beat REAL,
                                        ident TEXT NOT NULL DEFAULT '');
"""
WAITING, RUNNING, DONE, CANCELLED = "waiting", "running", "done", "cancelled"
STOP, PRUNE = 1, 2  # the queue row's ``cancel``: stop the running run; stop it and mark it pruned
LEASE_STALE_S = 15.0  # a scheduler that has not beaten for this long is gone


# --- devices ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Inventory:
    """The devices a scheduler may hand out: GPU indices and how many CPU runs may run at once."""

    gpus: tuple[int, ...] = ()
    cpu_slots: int = 1


@dataclass(frozen=True)
class Request:
    device: str  # "cpu" or "cuda"
    count: int = 1  # GPUs wanted (one per rank); a CPU run takes one slot whatever its processes
    gpus: tuple[int, ...] = ()  # exactly these GPUs, when the config lists them

    @classmethod
    def of(cls, config: RunConfig) -> Request:
        hw = config.hardware
        if hw.device == "cuda":
            return cls("cuda", hw.processes, tuple(hw.gpus))
        return cls("cpu", 1)


def devices_needed_error(request: Request, inventory: Inventory) -> str | None:
    """Why a request can never be served by this inventory (None when it can, once devices are free)."""
    if request.device != "cuda":
        return None if inventory.cpu_slots > 0 else "this scheduler runs no CPU runs (cpu slots = 0)"
    have = set(inventory.gpus)
    if request.gpus:
        missing = sorted(set(request.gpus) - have)
        if missing:
            return f"the run asks for GPU {missing[0]}, which this machine does not have ({len(have)} GPUs)"
        return None
    if request.count > len(have):
        return f"the run asks for {request.count} GPUs; this machine has {len(have)}"
    return None


def allocate(request: Request, inventory: Inventory, busy: Sequence[Sequence[str]]) -> list[str] | None:
    """The devices to give a run now (``["cpu"]`` or ``["cuda:0", "cuda:1"]``), or None if they are taken.

    ``busy`` holds the device lists of the runs already running."""
    taken = [d for devices in busy for d in devices]
    if request.device != "cuda":
        return ["cpu"] if taken.count("cpu") < inventory.cpu_slots else None
    free = [g for g in inventory.gpus if f"cuda:{g}" not in taken]
    if request.gpus:
        return [f"cuda:{g}" for g in request.gpus] if set(request.gpus) <= set(free) else None
    return [f"cuda:{g}" for g in free[: request.count]] if len(free) >= request.count else None


def devices_of(config: RunConfig) -> list[str]:
    """The devices a run started outside the queue occupies (``studio train``, the GUI's Train)."""
    hw = config.hardware
    if hw.device == "cuda":
        return [f"cuda:{g}" for g in (hw.gpus or range(hw.processes))]
    return ["cpu"]


def gpu_indices(devices: Sequence[str]) -> list[int]:
    return [int(d.split(":", 1)[1]) for d in devices if d.startswith("cuda:")]


# --- the queue -------------------------------------------------------------------------------
@dataclass
class QueueEntry:
    run_id: str
    name: str
    state: str
    position: int  # 1, 2, … among waiting runs; 0 when running or over
    devices: list[str] = field(default_factory=list)
    status: str = ""
    added: float = 0.0
    started: float | None = None
    ended: float | None = None

    def to_json(self) -> QueueEntryJSON:
        return {"run_id": self.run_id, "name": self.name, "state": self.state, "position": self.position,
                "devices": self.devices, "status": self.status, "added": self.added, "started": self.started,
                "ended": self.ended}


@dataclass
class Claim:
    info: RunInfo
    config: RunConfig
    devices: list[str]


class RunQueue:
    """The queue of a run store. Opens its own SQLite connection (autocommit, explicit transactions)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        if getattr(store, "read_only", False):  # watching: read the queue if the store has one, write nothing
            from studio.core.runs.db import connect_readonly

            self._db = connect_readonly(store.db_path)
            self._db.isolation_level = None
            if not self._db.execute("SELECT 1 FROM sqlite_master WHERE name='queue'").fetchone():
                self._db.executescript(QUEUE_SCHEMA.replace("CREATE TABLE", "CREATE TEMP TABLE"))
            self._lease_cols = self._lease_columns()
            return
        self._db = sqlite3.connect(store.db_path, timeout=60, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout=60000")
        self._db.executescript(QUEUE_SCHEMA)
        if "ident" not in {row[1] for row in self._db.execute("PRAGMA table_info(queue_lease)")}:
            try:  # additive: the holder's host and pid:start, so a dead holder is seen at once
                self._db.execute("ALTER TABLE queue_lease ADD COLUMN ident TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError:  # another process added it first
                pass
        self._lease_cols = self._lease_columns()

    def _lease_columns(self) -> str:
        """The lease's columns to read (a read-only store made before ``ident`` existed reads '' for it)."""
        has = "ident" in {row[1] for row in self._db.execute("PRAGMA table_info(queue_lease)")}
        return "pid, beat, ident" if has else "pid, beat, ''"

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction that holds SQLite's write lock from its first statement."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # --- adding and cancelling ---------------------------------------------------------------
    def add(self, config: RunConfig, name: str = "") -> RunInfo:
        """Create the run (status queued) and put it at the end of the queue; a config whose model cannot train on
        its data is refused here, in one sentence, not when the scheduler starts it."""
        from studio.core.config.data_fit import check_model_data

        config.validate()
        check_model_data(config)
        info = self.store.create_run(config, name)
        try:
            with self._write() as db:
                last = db.execute("SELECT COALESCE(MAX(position), 0) FROM queue").fetchone()[0]
                db.execute("INSERT INTO queue (run_id, position, added) VALUES (?,?,?)",
                           (info.id, last + 1, time.time()))
        except BaseException:
            self.store.delete(info.id)
            raise
        return info

    def cancel(self, run_id: str, prune: bool = False) -> str:
        """Cancel a waiting run (it never starts: ``cancelled``) or ask a running one to stop (``stopping``);
        ``prune``: a running run is to be marked ``pruned`` once it has stopped (a waiting one is cancelled)."""
        with self._write() as db:
            row = db.execute("SELECT state FROM queue WHERE run_id=?", (run_id,)).fetchone()
            if row is None:
                raise ConfigError(f"run {run_id} is not in the queue; `studio queue list` shows it")
            state = row[0]
            if state == WAITING:
                db.execute("UPDATE queue SET state=?, ended=? WHERE run_id=?", (CANCELLED, time.time(), run_id))
                db.execute("UPDATE runs SET status='cancelled', message=?, updated=? WHERE id=?",
                           ("cancelled in the queue before it started", time.time(), run_id))
                return "cancelled"
            if state == RUNNING:
                db.execute("UPDATE queue SET cancel=? WHERE run_id=?", (PRUNE if prune else STOP, run_id))
                return "stopping"
        raise ConfigError(f"run {run_id} has already {'ended' if state == DONE else 'been cancelled'}")

    def move(self, run_id: str, position: int) -> int:
        """Put a waiting run at ``position`` among the waiting runs (1: it starts next; past the end: last); the
        others keep their order. The position it got."""
        with self._write() as db:
            waiting = [r for (r,) in db.execute("SELECT run_id FROM queue WHERE state=? ORDER BY position",
                                                (WAITING,))]
            if run_id not in waiting:
                row = db.execute("SELECT state FROM queue WHERE run_id=?", (run_id,)).fetchone()
                raise ConfigError(f"run {run_id} is not in the queue" if row is None else
                                  f"run {run_id} is {row[0]}: only a waiting run can move in the queue")
            if position < 1:
                raise ConfigError(f"a queue position is 1 or more (1: next), not {position}")
            slots = [p for (p,) in db.execute("SELECT position FROM queue WHERE state=? ORDER BY position",
                                              (WAITING,))]
            waiting.remove(run_id)
            index = min(position, len(waiting) + 1) - 1
            waiting.insert(index, run_id)
            # the waiting runs take the same slots in their new order; running and finished ones keep theirs
            db.executemany("UPDATE queue SET position=? WHERE run_id=?", zip(slots, waiting, strict=True))
        return index + 1

    # --- reading -----------------------------------------------------------------------------
    def entries(self, include_over: bool = False) -> list[QueueEntry]:
        """Waiting runs in queue order after the running ones (and, if asked, those that are over)."""
        where = "" if include_over else "WHERE q.state IN ('waiting', 'running')"
        rows = self._db.execute(
            "SELECT q.run_id, r.name, q.state, q.devices, r.status, q.added, q.started, q.ended "
            f"FROM queue q JOIN runs r ON r.id = q.run_id {where} ORDER BY q.position").fetchall()
        order = {RUNNING: 0, WAITING: 1, DONE: 2, CANCELLED: 2}
        rows.sort(key=lambda r: order[r[2]])  # stable: queue order within each state
        out, n = [], 0
        for run_id, name, state, devices, status, added, started, ended in rows:
            n += state == WAITING
            out.append(QueueEntry(run_id, name, state, n if state == WAITING else 0, json.loads(devices), status,
                                  added, started, ended))
        return out

    def positions(self) -> dict[str, int]:
        """Queue position (1 = next) of every waiting run."""
        return {e.run_id: e.position for e in self.entries() if e.state == WAITING}

    def running(self) -> list[tuple[str, str, int]]:
        """``(run_id, owner, cancel requested)`` of the claimed runs: ``cancel`` is 0, ``STOP`` or ``PRUNE``; the
        owner is the scheduler's ``procs.identity`` (``pid:start``)."""
        return self._db.execute("SELECT run_id, owner, cancel FROM queue WHERE state='running'").fetchall()

    def changes_token(self) -> tuple:
        """Something that changes whenever a run is added, changes status or moves in the queue (cheap to poll)."""
        runs = self._db.execute("SELECT COUNT(*), MAX(updated) FROM runs").fetchone()
        # SUM(position * rowid): the order of the queue (a move permutes positions between fixed rowids)
        queue = self._db.execute("SELECT COUNT(*), SUM(state='waiting'), SUM(state='running'), MAX(ended), "
                                 "SUM(position * rowid) FROM queue").fetchone()
        return (*runs, *queue)

    def wants_gpu(self) -> bool:
        """Whether a waiting run asks for CUDA (read from the TOML alone: cheap)."""
        for (text,) in self._db.execute("SELECT r.config FROM queue q JOIN runs r ON r.id = q.run_id "
                                        "WHERE q.state='waiting'"):
            try:
                if tomllib.loads(text).get("hardware", {}).get("device") == "cuda":
                    return True
            except tomllib.TOMLDecodeError:
                continue
        return False

    def pending(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM queue q JOIN runs r ON r.id = q.run_id "
                                "WHERE q.state='waiting'").fetchone()[0]

    # --- scheduling --------------------------------------------------------------------------
    def claim_next(self, owner: str, inventory: Inventory) -> Claim | None:
        """Atomically pick the first waiting run whose devices are free, mark it running with them and
        return it. A run that waits for busy devices holds back the later runs of its kind (no starvation
        of a DDP run by single-GPU runs). A run that can never start is failed with the reason."""
        outside = self._busy_outside()
        with self._write() as db:
            busy = [json.loads(d) for (d,) in db.execute("SELECT devices FROM queue WHERE state='running'")]
            busy += outside
            blocked: set[str] = set()
            for run_id, config_text, run_dir in db.execute(
                    "SELECT q.run_id, r.config, r.dir FROM queue q JOIN runs r ON r.id = q.run_id "
                    "WHERE q.state='waiting' ORDER BY q.position").fetchall():
                try:
                    config = RunConfig.from_toml(config_text, run_dir)  # a user file: its copy in the run
                    request = Request.of(config)
                    reason = devices_needed_error(request, inventory)
                except StudioError as err:
                    reason = str(err)
                if reason:
                    self._fail_locked(db, run_id, f"cannot start from the queue: {reason}")
                    continue
                if request.device in blocked:
                    continue
                devices = allocate(request, inventory, busy)
                if devices is None:
                    blocked.add(request.device)
                    continue
                db.execute("UPDATE queue SET state='running', devices=?, owner=?, started=? "
                           "WHERE run_id=? AND state='waiting'", (json.dumps(devices), owner, time.time(), run_id))
                if gpu_indices(devices):
                    config.hardware.gpus = gpu_indices(devices)
                return Claim(self.store.get(run_id), config, devices)
        return None

    def _busy_outside(self) -> list[list[str]]:
        """Devices of live runs the queue did not start. Read through the store first, which settles a run whose
        processes are gone as interrupted (so a crashed run never blocks the queue); outside the claim's
        transaction, because settling writes through the store's own connection."""
        rows = self._db.execute("SELECT id FROM runs WHERE status IN ('running', 'paused') AND id NOT IN "
                                "(SELECT run_id FROM queue WHERE state='running')").fetchall()
        busy = []
        for (run_id,) in rows:
            info = self.store.get(run_id)
            if info.status in LIVE:
                try:
                    busy.append(devices_of(info.run_config))
                except StudioError:
                    continue
        return busy

    def _fail_locked(self, db: sqlite3.Connection, run_id: str, message: str) -> None:
        now = time.time()
        db.execute("UPDATE queue SET state='done', ended=? WHERE run_id=?", (now, run_id))
        db.execute("UPDATE runs SET status='failed', message=?, updated=? WHERE id=?", (message, now, run_id))

    def finish(self, run_id: str, failed_message: str | None = None) -> None:
        """The run ended (its status is in the runs table): free its devices. With ``failed_message``, a
        run that did not record an end is marked failed with it. A run asked to be pruned that stopped is marked
        ``pruned`` (its run.json too)."""
        with self._write() as db:
            db.execute("UPDATE queue SET state='done', ended=? WHERE run_id=?", (time.time(), run_id))
            if failed_message:
                db.execute("UPDATE runs SET status='failed', message=?, updated=? "
                           "WHERE id=? AND status IN ('queued', 'running', 'paused')",
                           (failed_message, time.time(), run_id))
            row = db.execute("SELECT q.cancel, r.status FROM queue q JOIN runs r ON r.id = q.run_id "
                             "WHERE q.run_id=?", (run_id,)).fetchone()
        if row and row[0] == PRUNE and row[1] == JobState.STOPPED:
            epochs = self.store.get(run_id).summary.get("epochs")
            self.store.set_status(run_id, JobState.PRUNED, "pruned by the search: stopped early"
                                  + (f" after {epochs} epoch{'s' if epochs != 1 else ''}" if epochs else "")
                                  + " with a checkpoint (resume it to train on)")

    # --- the scheduler's lease ---------------------------------------------------------------
    def take_lease(self, pid: int, now: float | None = None) -> bool:
        """Become the serving scheduler unless another one is alive: on this host its pid and start time
        decide at once; elsewhere, a beat within ``LEASE_STALE_S``."""
        now = time.time() if now is None else now
        with self._write() as db:
            row = db.execute(f"SELECT {self._lease_cols} FROM queue_lease WHERE id=1").fetchone()
            if row and row[0] != pid and _holder_alive(row, now):
                return False
            db.execute("INSERT OR REPLACE INTO queue_lease (id, pid, beat, ident) VALUES (1, ?, ?, ?)",
                       (pid, now, f"{procs.host()}/{procs.identity(pid)}"))
            return True

    def beat(self, pid: int) -> bool:
        """Renew the lease; False if another scheduler has taken it over."""
        with self._write() as db:
            return db.execute("UPDATE queue_lease SET beat=? WHERE id=1 AND pid=?", (time.time(), pid)).rowcount == 1

    def release_lease(self, pid: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM queue_lease WHERE id=1 AND pid=?", (pid,))

    def lease_holder(self) -> int | None:
        """The pid of the scheduler serving the queue now, if any."""
        row = self._db.execute(f"SELECT {self._lease_cols} FROM queue_lease WHERE id=1").fetchone()
        return row[0] if row and _holder_alive(row, time.time()) else None


def _holder_alive(row: tuple, now: float) -> bool:
    """Whether the lease's scheduler still serves: ``(pid, beat, ident)``, ident ``host/pid:start``; where the
    start time could not be read (no ``/proc``) or the holder runs on another host, its beat decides."""
    host, _, ident = str(row[2] or "").partition("/")
    if ident and not ident.endswith(":0") and host == procs.host():
        return procs.alive(ident)  # a killed scheduler (kill -9, its group) is seen as gone at once
    return now - row[1] < LEASE_STALE_S
