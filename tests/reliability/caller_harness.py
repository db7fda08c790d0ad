"""A caller that traps SIGTERM (a classroom launcher script, a test harness, a desktop wrapper), for
test_caller_signals.py: it starts Studio in its own process group, as a background job of a script is, lets a run
train, terminates Studio (SIGTERM, then SIGKILL a second later) and reports, as one JSON line, how many SIGTERMs it
received itself and the process groups of the run's processes.

    python -m tests.reliability.caller_harness cli|window STUDIO_HOME
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

LONG = ["data.name=moons", "data.n_samples=300", "model.widths=16", "train.batch_size=32", "train.epochs=100000",
        "hardware.threads=1"]
# the window's way of running jobs, without the window: the warm back end's forked processes, as Session.start uses
WINDOW = f"""
from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.engine.training.launcher import launch
backend.start_warm()
job = launch(RunConfig().with_overrides({LONG!r}), RunStore())
while not job.finished:
    job.poll(0.2)
"""


def rank_pids(home: Path) -> list[int]:
    try:
        db = sqlite3.connect(home / "runs.db", timeout=5)
        try:
            row = db.execute("SELECT procs FROM runs WHERE status='running'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    return [int(p.split(":")[0]) for p in json.loads(row[0])["pids"]] if row and row[0] else []


def main() -> None:
    kind, home = sys.argv[1], Path(sys.argv[2])
    received: list[float] = []
    signal.signal(signal.SIGTERM, lambda *_: received.append(time.time()))
    env = dict(os.environ, STUDIO_HOME=str(home))
    command = ([sys.executable, "-m", "studio", "train", *[a for s in LONG for a in ("--set", s)]] if kind == "cli"
               else [sys.executable, "-c", WINDOW])
    studio = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    pids: list[int] = []
    while time.monotonic() < deadline and not pids:
        time.sleep(0.2)  # polling the run store, which has nothing to wait on
        pids = rank_pids(home) if (home / "runs.db").exists() else []
    groups = {pid: os.getpgid(pid) for pid in pids}
    studio.send_signal(signal.SIGTERM)
    time.sleep(1.0)  # as the script: TERM, then KILL a second later
    studio.kill()
    studio.wait()
    gone_by = time.monotonic() + 30
    while time.monotonic() < gone_by and any(Path(f"/proc/{p}").exists() and
                                             Path(f"/proc/{p}/stat").read_text().split()[2] not in "ZX"
                                             for p in pids):
        time.sleep(0.2)
    time.sleep(0.5)  # a late signal would arrive now
    print(json.dumps({"received": len(received), "caller_group": os.getpgrp(), "rank_groups": list(groups.values()),
                      "ranks": pids}), flush=True)


if __name__ == "__main__":
    main()
