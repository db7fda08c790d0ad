"""Issue 39.5: Studio signals only the processes and process groups it created. Started by a caller that shares
its process group (a background job of a script, a desktop wrapper, a test harness), Studio runs its jobs in groups
of their own; terminating Studio (SIGTERM, then SIGKILL a second later) must never deliver a signal to the caller,
which here traps SIGTERM and counts it. The run's ranks still stop by themselves, with a checkpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from studio.core.runs.store import RunStore


@pytest.mark.parametrize(("kind", "why"), [
    ("cli", "stopped by SIGTERM"),  # `studio train` passes the SIGTERM on to its ranks' groups
    ("window", "went away"),  # the window's ranks see it gone
])
def test_terminating_studio_never_signals_its_caller(home, kind, why):
    proc = subprocess.run([sys.executable, "-m", "tests.reliability.caller_harness", kind, str(home)],
                          capture_output=True, text=True, timeout=240, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["ranks"], "the run never trained"
    assert report["received"] == 0, f"the caller received SIGTERM {report['received']} times"
    assert report["caller_group"] not in report["rank_groups"], report  # the job has a group of its own
    run = RunStore(home).list()[0]
    assert run.status == "stopped" and why in run.message, (run.status, run.message)
    assert run.last_checkpoint is not None
