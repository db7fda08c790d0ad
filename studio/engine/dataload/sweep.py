"""The input-pipeline sweep from the caller's side (``studio dataload``, the background task, the paper check):
check the request and find the files (one sentence for each problem, before any process starts), run the
measurement in its own process (``engine/dataload/measure.py``: DataLoader workers are its children, in its
process group), follow it, and on cancel, failure or Ctrl-C kill that whole group so no worker is left."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from studio.core.contracts.dataload import ConfigRow, DataloadRequest, DataloadResult, validate
from studio.core.errors import ConfigError, RunFailed
from studio.core.maths.data_stalls import gpu_line, verdict
from studio.engine.dataload.source import geometry_of, resolve

Report = Callable[[float, str], None]
POLL_S = 0.2  # how often a silent measurement is checked for a cancel


def finish(result: dict[str, Any]) -> DataloadResult:
    """The measured result with each row's speed-up against the first DataLoader row and the verdict."""
    rows: list[ConfigRow] = result["rows"]
    base = next((r for r in rows if r["kind"] == "loader"), rows[0] if rows else None)
    for r in rows:
        r["speedup"] = r["samples_per_s"] / base["samples_per_s"] if base and base["samples_per_s"] else 1.0
    result["notes"] = result.get("notes", []) + persistent_notes(rows)
    words, bottleneck = verdict(rows)
    gpu = gpu_line(rows)
    result["verdict"] = words[0].upper() + words[1:] + (f" {gpu}." if gpu else "")
    result["bottleneck"] = bottleneck
    return cast(DataloadResult, result)


def persistent_notes(rows: list[ConfigRow]) -> list[str]:
    """What persistent workers saved at each epoch start, per worker count measured both ways."""
    notes = []
    for row in rows:
        if row["kind"] == "loader" and row["persistent"]:
            plain = next((r for r in rows if r["kind"] == "loader" and r["workers"] == row["workers"]
                          and r["pin_memory"] == row["pin_memory"] and r["persistent"] is False), None)
            if plain is not None:
                notes.append(f"with {row['workers']} worker{'s' if row['workers'] > 1 else ''}, a later epoch's first "
                             f"batch took {row['epoch_start_ms']:.0f} ms with persistent workers against "
                             f"{plain['epoch_start_ms']:.0f} ms when they are started again")
    return notes


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the measurement and every worker it started (they share its process group)."""
    if proc.poll() is None or os.name == "posix":
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _pump(stream: Any, out: queue.Queue) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _keep_tail(stream: Any, tail: deque) -> None:
    for line in stream:  # read as it comes, so a chatty stderr never fills its pipe and blocks the child
        if line.strip():
            tail.append(line.rstrip())


def run_sweep(request: DataloadRequest, progress: Report | None = None,
              on_start: Callable[[subprocess.Popen], None] | None = None) -> DataloadResult:
    """Measure ``request``; ``on_start`` sees the measuring process (tests)."""
    request = validate(request)
    report = progress or (lambda _f, _t: None)
    if request.dataset and request.data_params is not None:  # a dataset that is code: its own items, no files
        return _measure({"request": asdict(request), "code_data": True}, request, report, [], on_start)
    report(0.0, "finding the image files")
    files = resolve(request, progress=report)
    geo = geometry_of(files.paths, request.size)  # headers only: a folder of unreadable files stops here
    plan = {"request": asdict(request), "paths": files.paths, "labels": files.labels, "classes": files.classes,
            "folder": str(files.folder), "geometry": [geo.channels, geo.height, geo.width]}
    return _measure(plan, request, report, files.notes, on_start)


def _measure(plan: dict[str, Any], request: DataloadRequest, report: Report, notes: list[str],
             on_start: Callable[[subprocess.Popen], None] | None) -> DataloadResult:
    """Run the measurement process on ``plan`` and follow it to its result."""
    with tempfile.TemporaryDirectory(prefix="studio-dataload-") as tmp:
        plan_path = Path(tmp) / "plan.json"
        plan_path.write_text(json.dumps(plan), encoding="utf-8")
        env = dict(os.environ, OMP_NUM_THREADS=str(request.threads), PYTHONUNBUFFERED="1")
        proc = subprocess.Popen([sys.executable, "-m", "studio.engine.dataload.measure", str(plan_path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=os.name == "posix")
        try:
            if on_start is not None:
                on_start(proc)
            result = _follow(proc, report)
        except BaseException:
            kill_group(proc)
            raise
        kill_group(proc)  # the measurement has ended; any worker it left behind goes with its group
    result["notes"] = notes + result["notes"]
    return finish(result)


def _follow(proc: subprocess.Popen, report: Report) -> dict[str, Any]:
    assert proc.stdout is not None and proc.stderr is not None
    lines: queue.Queue = queue.Queue()
    errors: deque = deque(maxlen=20)
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    threading.Thread(target=_keep_tail, args=(proc.stderr, errors), daemon=True).start()
    fraction, text = 0.0, "starting the measurement"
    while True:
        try:
            line = lines.get(timeout=POLL_S)
        except queue.Empty:
            report(fraction, text)  # a Progress raises Cancelled here once the person asked to stop
            continue
        if line is None:
            break
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        kind = msg.get("type")
        if kind == "progress":
            fraction, text = float(msg["fraction"]), str(msg["text"])
            report(fraction, text)
        elif kind == "result":
            return dict(msg["result"])
        elif kind == "error":
            raise (ConfigError if msg.get("code") == 2 else RunFailed)(str(msg["message"]))
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    time.sleep(0.1)  # the stderr reader's last lines
    tail = errors[-1] if errors else ""
    how = f"exited with code {proc.returncode}" if (proc.returncode or 0) >= 0 else \
        f"was killed by signal {-proc.returncode}"
    raise RunFailed(f"the input-pipeline measurement {how}" + (f": {tail}" if tail else " without a word"))

