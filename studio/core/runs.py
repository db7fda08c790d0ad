"""The run store: one directory per run (config.toml, checkpoints/, landscapes/) and one SQLite
database (runs, params, metrics) in WAL mode, written by rank 0 and read by the GUI and the CLI.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.paths import studio_home

STATUSES = ("queued", "running", "paused", "finished", "failed", "stopped", "cancelled")
ENDED = ("finished", "failed", "stopped", "cancelled")  # cancelled: taken out of the queue before it started

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, name TEXT, created REAL, updated REAL, status TEXT,
    config TEXT, summary TEXT DEFAULT '{}', message TEXT DEFAULT '', dir TEXT
);
CREATE TABLE IF NOT EXISTS params (run_id TEXT, key TEXT, value TEXT, PRIMARY KEY (run_id, key));
CREATE TABLE IF NOT EXISTS metrics (run_id TEXT, step INTEGER, name TEXT, value REAL, wall REAL);
CREATE INDEX IF NOT EXISTS metrics_by_run ON metrics (run_id, name, step);
"""


@dataclass
class RunInfo:
    id: str
    name: str
    created: float
    updated: float
    status: str
    config: str
    dir: Path
    summary: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.id, "name": self.name, "status": self.status, "created": self.created,
                "updated": self.updated, "dir": str(self.dir), "message": self.message, **self.summary}

    @property
    def run_config(self) -> RunConfig:
        return RunConfig.from_toml(self.config)


def flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in d.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


class RunStore:
    """Runs on disk and in SQLite. Safe to open from several processes at once."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home else studio_home()
        self.runs_dir = self.home / "runs"
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = self.home / "runs.db"
        self._db = sqlite3.connect(self.db_path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # --- writing ---------------------------------------------------------------------------
    def create_run(self, config: RunConfig, name: str = "") -> RunInfo:
        """Register a new run (status queued) and write its directory with config.toml."""
        now = time.time()
        run_id = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + "-" + secrets.token_hex(2)
        run_dir = self.runs_dir / run_id
        (run_dir / "checkpoints").mkdir(parents=True)
        text = config.to_toml()
        (run_dir / "config.toml").write_text(text, encoding="utf-8")
        name = name or f"{config.model.name} · {config.optimizer.name} · {config.data.name}"
        with self._db:
            self._db.execute(
                "INSERT INTO runs (id, name, created, updated, status, config, dir) VALUES (?,?,?,?,?,?,?)",
                (run_id, name, now, now, "queued", text, str(run_dir)),
            )
            self._db.executemany(
                "INSERT INTO params VALUES (?,?,?)",
                [(run_id, k, json.dumps(v)) for k, v in flatten(config.to_dict()).items()],
            )
        return self.get(run_id)

    def set_status(self, run_id: str, status: str, message: str | None = None,
                   summary: dict[str, Any] | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(status)
        with self._db:
            self._db.execute("UPDATE runs SET status=?, updated=? WHERE id=?", (status, time.time(), run_id))
            if message is not None:
                self._db.execute("UPDATE runs SET message=? WHERE id=?", (message, run_id))
            if summary is not None:
                old = json.loads(self._db.execute("SELECT summary FROM runs WHERE id=?", (run_id,)).fetchone()[0])
                self._db.execute("UPDATE runs SET summary=? WHERE id=?", (json.dumps({**old, **summary}), run_id))

    def log_metrics(self, run_id: str, rows: Iterable[tuple[int, str, float, float]]) -> None:
        """Append ``(step, name, value, wall_time)`` rows in one transaction."""
        with self._db:
            self._db.executemany(
                "INSERT INTO metrics (run_id, step, name, value, wall) VALUES (?,?,?,?,?)",
                [(run_id, int(s), n, float(v), float(w)) for s, n, v, w in rows],
            )

    def delete(self, run_id: str) -> None:
        import shutil

        info = self.get(run_id)
        with self._db:
            for table, col in (("metrics", "run_id"), ("params", "run_id"), ("runs", "id")):
                self._db.execute(f"DELETE FROM {table} WHERE {col}=?", (run_id,))
        shutil.rmtree(info.dir, ignore_errors=True)

    # --- reading ---------------------------------------------------------------------------
    def _info(self, row: tuple) -> RunInfo:
        rid, name, created, updated, status, config, summary, message, rdir = row
        return RunInfo(rid, name, created, updated, status, config, Path(rdir), json.loads(summary or "{}"),
                       message or "")

    _COLS = "id, name, created, updated, status, config, summary, message, dir"

    def list(self) -> list[RunInfo]:
        """All runs, newest first."""
        rows = self._db.execute(f"SELECT {self._COLS} FROM runs ORDER BY created DESC").fetchall()
        return [self._info(r) for r in rows]

    def get(self, run_id: str) -> RunInfo:
        row = self._db.execute(f"SELECT {self._COLS} FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise ConfigError(f"no run {run_id!r} in {self.db_path}; `studio runs` lists them")
        return self._info(row)

    def resolve(self, id_or_dir: str) -> RunInfo:
        """A run by id, by unique id prefix or suffix (``…-2c47``), or by its directory."""
        path = Path(id_or_dir)
        if path.is_dir() and (path / "config.toml").exists():
            return self.get(path.resolve().name)
        rows = self._db.execute("SELECT id FROM runs WHERE id LIKE ? OR id LIKE ?",
                                (id_or_dir + "%", "%" + id_or_dir)).fetchall()
        if len(rows) == 1:
            return self.get(rows[0][0])
        if len(rows) > 1:
            raise ConfigError(f"{id_or_dir!r} matches {len(rows)} runs; give more of the id")
        return self.get(id_or_dir)

    def metrics(self, run_id: str, since_rowid: int = 0) -> dict[str, tuple[list[int], list[float]]]:
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

    def metric_rows(self, run_id: str) -> list[tuple[str, int, float, float]]:
        """Every metric row of a run as ``(name, step, value, wall_time)``, in logging order."""
        return self._db.execute("SELECT name, step, value, wall FROM metrics WHERE run_id=? ORDER BY rowid",
                                (run_id,)).fetchall()

    def last_metric_rowid(self, run_id: str) -> int:
        return self._db.execute("SELECT COALESCE(MAX(rowid), 0) FROM metrics WHERE run_id=?", (run_id,)).fetchone()[0]

    def metric_rows_after(self, run_id: str, rowid: int) -> list[tuple[int, int, str, float, float]]:
        """The rows logged after ``rowid`` as ``(rowid, step, name, value, wall_time)`` (to follow a live run)."""
        return self._db.execute("SELECT rowid, step, name, value, wall FROM metrics WHERE run_id=? AND rowid>? "
                                "ORDER BY rowid", (run_id, rowid)).fetchall()

    def params(self, run_id: str) -> dict[str, Any]:
        rows = self._db.execute("SELECT key, value FROM params WHERE run_id=?", (run_id,)).fetchall()
        return {k: json.loads(v) for k, v in rows}
