"""`studio async` with real processes: a worker killed mid-run (SIGKILL) ends the study within a bound, names
that worker in one sentence (exit 3), and leaves no process behind; the same for a Hogwild worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.conftest import error_lines

BOUND_S = 25.0  # from the kill to: the command ended and every process of the study gone


def _descendants(root: int) -> list[int]:
    """Every process below ``root`` (from /proc's parent links)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.append(pid)
    return out


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "studio", "async", "--json", "--quiet", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for(proc: subprocess.Popen, marker: str, count: int, timeout: float = 90) -> tuple[int, list[int]]:
    """The pid of the first process whose command line holds ``marker`` once ``count`` such exist (and all
    processes of the study seen so far)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = _descendants(proc.pid)
        hits = [p for p in pids if marker in _cmdline(p)]
        if len(hits) >= count:
            return hits[0], pids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    raise AssertionError(f"no {count} processes with {marker!r} in time")


def _finish(proc: subprocess.Popen, family: list[int]) -> tuple[int, str, str]:
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    while _alive(family) and time.monotonic() - sent < BOUND_S:
        time.sleep(0.1)
    assert not _alive(family), [(_cmdline(p), p) for p in _alive(family)]
    return proc.returncode, out, err


def test_killed_worker_is_named_and_no_process_is_left():
    proc = _start("--workers", "2", "--modes", "async", "--updates", "1000000", "--delays", "0,0.01")
    victim, _ = _wait_for(proc, "--rank 2", 1)
    time.sleep(3)  # into the run (start-up or training: either way it must be named and cleaned up)
    family = _descendants(proc.pid)
    assert victim in family and len(family) >= 3
    os.kill(victim, signal.SIGKILL)
    code, _out, err = _finish(proc, family)
    assert code == 3
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith(f"studio: error: worker 1 (pid {victim}) was killed by SIGKILL")


@pytest.mark.slow
def test_killed_hogwild_worker_is_named_and_no_process_is_left():
    proc = _start("--workers", "2", "--modes", "hogwild", "--updates", "1000000")
    victim, _ = _wait_for(proc, "spawn_main", 2)
    time.sleep(6)  # into the run: the kill lands at some moment of it, which is the test's point
    family = _descendants(proc.pid)
    os.kill(victim, signal.SIGKILL)
    code, _out, err = _finish(proc, family)
    assert code == 3
    lines = error_lines(err)
    assert len(lines) == 1 and "Hogwild worker" in lines[0] and "killed by SIGKILL" in lines[0], lines
