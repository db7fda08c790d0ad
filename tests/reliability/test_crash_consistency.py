"""Crash consistency (issue 39): a short training run is killed with SIGKILL, the launcher and every rank at once,
again and again at instrumented points of the writers (core/host/fault_points.py: a checkpoint written but not yet
renamed, half a batch of metrics.csv lines written, inside the curve pack's transaction, between a store
migration's statements, with a curve chunk written, inside a chunk merge, inside a run's conversion to chunks)
and at random moments. After each kill:

- the store opens (``studio runs`` exits 0) and lists the run; its curves read (pack and chunks) are exactly its
  committed rows; rebuilt from the folders (runs.db deleted), it has every value it had;
- every value runs.db committed is in the run folder's own record (metrics.csv), so nothing durable is lost;
- every checkpoint file under its final name loads (no half-written checkpoint);
- ``studio train --resume`` completes, with final weights bit-identical (``torch.equal``) to an uninterrupted run's
  and every logged value equal to its (the wall-clock throughput aside); a run killed before its first checkpoint
  is listed as interrupted with nothing to resume, and says so.

The default run tries ``DEFAULT_POINTS`` kill points (about 3 minutes on 2 cores); ``STUDIO_CRASH_POINTS=N`` tries
N, the extra ones at random points and random moments. Each kill point's findings are printed (``-s``).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studio.core.contracts import layout
from tests.conftest import last_json, run_cli

ARGS = [a for s in ("data.name=moons", "data.n_samples=300", "model.widths=16", "train.epochs=3",
                    "train.batch_size=32", "train.metric_interval=1", "train.checkpoint_every=1", "hardware.threads=1",
                    "train.seed=3") for a in ("--set", s)]
TIMED = {"throughput"}  # values that depend on the wall clock
# (point, the N-th time it is reached): 24 steps of 8 per epoch, a checkpoint at the start, after epochs 1 and 2,
# then the last step's and final.pt; a metrics.csv batch every step and at each epoch end
DEFAULT_POINTS = [("checkpoint.write", 1), ("checkpoint.write", 2), ("checkpoint.write", 4), ("checkpoint.write", 5),
                  ("metrics.append", 3), ("metrics.append", 14), ("metrics.append", 27), ("curve.pack", 1),
                  ("store.migrate", 1), ("store.migrate", 3), ("moment", 0), ("moment", 0),
                  ("curve.convert", 1), ("curve.chunk", 5), ("curve.merge", 2)]
RANGES = {"checkpoint.write": (1, 5), "metrics.append": (1, 30), "curve.pack": (1, 1), "store.migrate": (1, 3),
          "moment": (0, 0), "curve.convert": (1, 1), "curve.chunk": (1, 30), "curve.merge": (1, 3)}


def env_for(home: Path, fault: str = "") -> dict[str, str]:
    env = {**os.environ, "STUDIO_HOME": str(home)}
    env.pop("STUDIO_TEST_FAULT", None)
    if fault:
        env["STUDIO_TEST_FAULT"] = fault
    return env


def values(rows) -> dict[tuple[int, str], float]:
    return {(int(s), n): float(v) for s, n, v, *_ in rows if n not in TIMED}


def db_values(home: Path, run_id: str) -> dict[tuple[int, str], float]:
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    try:
        return {(s, n): v for n, (ss, vs) in store.metrics(run_id).items() if n not in TIMED
                for s, v in zip(ss, vs, strict=True)}
    finally:
        store.close()


def curves_match_rows(home: Path, run_id: str) -> bool:
    """What the curves read (a pack, chunks: core/runs/curve_chunks.py) is exactly the run's committed rows."""
    import numpy as np

    from studio.core.runs import curve_cache
    from studio.core.runs.store import RunStore

    store = RunStore(home, read_only=True)  # reads what is there, converts nothing
    try:
        got = store.curves([run_id])[run_id]
        sql, args = curve_cache.rows_query([run_id], None)
        want = {name: c for (_r, name), c in curve_cache.gather(store._db.execute(sql, args)).items()}
    finally:
        store.close()
    return got.keys() == want.keys() and all(
        np.array_equal(got[n].steps, want[n].steps) and np.array_equal(got[n].values, want[n].values, equal_nan=True)
        and np.array_equal(got[n].walls, want[n].walls, equal_nan=True) for n in want)


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k] == b[k] or (math.isnan(a[k]) and math.isnan(b[k])) for k in a)


def weights(run_dir: Path):
    import torch

    return torch.load(layout.final_path(run_dir), map_location="cpu", weights_only=True)["model"]


def equal_weights(a, b) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def kill_mid_run(home: Path, point: str, n: int, rng: random.Random) -> None:
    """``studio train`` in a session of its own, killed whole (launcher and ranks) at ``point``'s ``n``-th reach, or
    at a random moment for ``moment``."""
    fault = f"{point}:{n}:killgroup" if point != "moment" else ""
    proc = subprocess.Popen([sys.executable, "-m", "studio", "train", "--json", *ARGS], env=env_for(home, fault),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        if point == "moment":  # anywhere from the imports to the end: the run takes about 5 to 10 s here
            try:
                proc.wait(timeout=rng.uniform(1.0, 8.0))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=180)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the run may outlive the crash
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)


def migration_crash(home: Path, n: int, seeded: str) -> str:
    """An older store (before the tags table), opened by ``studio runs``, killed between the migration's statements;
    the next open must finish the migration and keep the run."""
    db = sqlite3.connect(home / "runs.db")
    with db:
        db.execute("DROP TABLE tags")
        db.execute("PRAGMA user_version=0")
    db.close()
    proc = subprocess.run([sys.executable, "-m", "studio", "runs", "--json"], capture_output=True, text=True,
                          env=env_for(home, f"store.migrate:{n}:kill"), timeout=120)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stderr)
    listed = run_cli("runs", "--json", env=env_for(home))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    assert [r["run_id"] for r in json.loads(listed.stdout)["runs"]] == [seeded]
    db = sqlite3.connect(home / "runs.db")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.close()
    from studio.core.runs.db import MIGRATIONS

    assert version == MIGRATIONS[-1][0] and "tags" in tables
    return f"killed in migration statement {n}; the next open finished it (user_version {version}), the run kept"


def check_after_kill(home: Path, reference: tuple, label: str) -> str:
    from studio.core.runs import metric_log
    from studio.core.runs.store import RunStore

    listed = run_cli("runs", "--json", env=env_for(home))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, (label, listed.stderr)
    rows = json.loads(listed.stdout)["runs"]
    if not rows:
        return "killed before the run was registered: nothing to keep"
    assert len(rows) == 1, (label, rows)
    run = rows[0]
    run_dir = Path(run["run_dir"] if "run_dir" in run else run["dir"])
    committed = db_values(home, run["run_id"])
    assert curves_match_rows(home, run["run_id"]), f"{label}: the curves read differ from the committed rows"
    record = metric_log.read(run_dir) or []
    kept = values(record)
    lost = {k: v for k, v in committed.items() if k not in kept or not same({k: v}, {k: kept[k]})}
    assert not lost, f"{label}: values runs.db committed but the run folder lacks: {list(lost)[:5]}"
    import torch

    for ref in layout.list_checkpoints(run_dir, with_final=True):
        torch.load(ref.path, map_location="cpu", weights_only=True)  # a name is only ever a whole checkpoint
    at_kill = dict(committed)
    for extra in ("runs.db", "runs.db-wal", "runs.db-shm"):
        (home / extra).unlink(missing_ok=True)
    rebuilt = db_values(home, run["run_id"])
    assert all(k in rebuilt for k in at_kill), f"{label}: the rebuild lost values runs.db had"
    ref_weights, ref_values = reference
    status = RunStore(home).get(run["run_id"]).status
    if status == "finished":  # killed after the end (packing its curves)
        assert equal_weights(weights(run_dir), ref_weights) and same(db_values(home, run["run_id"]), ref_values)
        return f"{len(at_kill)} values durable; finished before the kill: weights and values as uninterrupted"
    assert status == "interrupted", (label, status)  # whenever it was killed, even before its ranks started
    last = layout.last_checkpoint(run_dir)
    resumed = run_cli("train", "--resume", run["run_id"], "--json", env=env_for(home), timeout=300)
    if last is None:
        assert resumed.returncode == 2 and "no checkpoint" in resumed.stderr, (label, resumed.stderr)
        return f"{len(at_kill)} values durable; no checkpoint yet: listed interrupted, nothing to resume (said so)"
    assert resumed.returncode == 0, (label, resumed.stderr)
    assert last_json(resumed.stdout)["status"] == "finished"
    assert equal_weights(weights(run_dir), ref_weights), f"{label}: resumed weights differ from the uninterrupted run"
    after = db_values(home, run["run_id"])
    assert same(after, ref_values), f"{label}: the resumed run's values differ from the uninterrupted run's"
    assert curves_match_rows(home, run["run_id"]), f"{label}: after the resume the curves differ from the rows"
    assert same(values(metric_log.read(run_dir) or []), after), f"{label}: metrics.csv and runs.db disagree"
    assert not list(layout.checkpoints_dir(run_dir).glob(".*.tmp")), f"{label}: a killed write's temp file is left"
    return (f"{len(at_kill)} values durable; resumed from {last.name}: weights bit-identical, {len(after)} values as "
            "uninterrupted")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_killed_at_random_points_the_store_rebuilds_nothing_durable_is_lost_and_resume_is_bit_identical(tmp_path):
    done = run_cli("train", "--json", *ARGS, env=env_for(tmp_path / "reference"))
    assert done.returncode == 0, done.stderr
    ref_run = last_json(done.stdout)
    reference = (weights(Path(ref_run["run_dir"])), db_values(tmp_path / "reference", ref_run["run_id"]))
    rng = random.Random(int(os.environ.get("STUDIO_CRASH_SEED", "39")))
    wanted = int(os.environ.get("STUDIO_CRASH_POINTS", len(DEFAULT_POINTS)))
    points = DEFAULT_POINTS[:wanted] + [
        (p, rng.randint(*RANGES[p])) for p in rng.choices(sorted(RANGES), k=max(0, wanted - len(DEFAULT_POINTS)))]
    findings = []
    for i, (point, n) in enumerate(points):
        home = tmp_path / f"kill{i}"
        label = f"{point}#{n}" if point != "moment" else "a random moment"
        started = time.monotonic()
        if point == "store.migrate":
            seeded = tmp_path / f"kill{i}"
            shutil.copytree(tmp_path / "reference", seeded)
            said = migration_crash(seeded, n, ref_run["run_id"])
        else:
            kill_mid_run(home, point, n, rng)
            said = check_after_kill(home, reference, label)
        findings.append(f"{i + 1:2d}. {label:<20} {said} ({time.monotonic() - started:.0f} s)")
    print("\n" + "\n".join(findings))
    assert len(findings) == len(points)


def test_a_killed_writers_temporary_checkpoint_is_removed_by_the_next_save(tmp_path):
    """What the kills above found: a checkpoint written but not renamed leaves ``.NAME.PID.tmp`` (a checkpoint's
    size) behind; the next save in the folder removes those whose writer is gone, and no other."""
    import torch

    from studio.engine.loop.checkpoints import atomic_save

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f".step_0000008.pt.{dead.pid}.tmp"
    live = tmp_path / f".step_0000008.pt.{os.getppid()}.tmp"  # a writer that still runs (this test's parent)
    stale.write_bytes(b"half a checkpoint")
    live.write_bytes(b"being written")
    atomic_save({"model": {"w": torch.zeros(2)}}, tmp_path / "step_0000016.pt")
    assert not stale.exists() and live.exists() and (tmp_path / "step_0000016.pt").exists()
