"""`studio parallel`: a rank that dies mid-run (SIGKILL at a step, through the test hook) fails the command
with exit 3 and a sentence naming that rank, promptly, and no rank process is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest


def _marked(mark: str) -> list[int]:
    """Pids of live processes whose environment carries ``mark`` (the command and the ranks it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
@pytest.mark.parametrize("where", ["1:ddp:3", "1:pipeline-gpipe:2"])
def test_a_killed_rank_is_named_and_nothing_is_left(where) -> None:
    """Rank 1 SIGKILLs itself at a step of DDP (in an all-reduce's reach) or of GPipe (in a P2P's)."""
    mark = f"STUDIO_PARALLEL_TEST_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, STUDIO_TEST_PARALLEL_KILL=where, STUDIO_PARALLEL_TEST_MARK=mark.split("=")[1])
    proc = subprocess.Popen([sys.executable, "-m", "studio", "parallel", "--quiet", "--ranks", "2", "--widths", "32,32",
                             "--batch-size", "16", "--steps", "40", "--microbatches", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    elapsed = time.monotonic() - started
    mode = where.split(":")[1]
    assert proc.returncode == 3, err
    # the survivor would wait in gloo for its 120 s timeout: the launcher stops it as soon as its peer died
    assert elapsed < 90, f"the command took {elapsed:.0f} s to fail"
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"studio: error: parallel rank 1 was killed by SIGKILL during {mode}"), lines[0]
    deadline = time.monotonic() + 5
    while _marked(mark.split("=")[1]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark.split("=")[1]) == [], "a rank process was left behind"

