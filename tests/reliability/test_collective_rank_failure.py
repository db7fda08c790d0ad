"""`studio allreduce` and `studio dlrm`: a rank that dies mid-run (SIGKILL through the test hooks) fails the
command with exit 3 and one sentence naming that rank and what was running, promptly; a job cancelled mid-run
(the lab pages' tasks) stops with ``Cancelled``; either way no rank process is left behind (checked in /proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

from studio.core.contracts.allreduce import AllreduceRequest
from studio.core.contracts.dlrm import DlrmRequest
from studio.core.contracts.progress import Cancelled, Progress
from tests.conftest import wait_for
from tests.reliability.test_parallel_rank_failure import _marked

MARK = "STUDIO_COLLECTIVE_TEST_MARK"


def left_behind(mark: str) -> list[int]:
    return [p for p in _marked(mark) if p != os.getpid()]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "hook", "sentence"), [
    (["allreduce", "--ranks", "2,3", "--size", "4K,64K"], ("STUDIO_TEST_ALLREDUCE_KILL", "1:3:server"),
     "all-reduce rank 1 was killed by SIGKILL during server at p = 3, 4K"),
    (["dlrm", "--rows", "1000", "--steps", "400"], ("STUDIO_TEST_DLRM_KILL", "1:5"),
     "DLRM rank 1 was killed by SIGKILL during seed 0: hybrid on 2 ranks"),
])
def test_a_killed_rank_is_named_and_nothing_is_left(command: list[str], hook: tuple[str, str], sentence: str) -> None:
    mark = uuid.uuid4().hex
    env = dict(os.environ, **{hook[0]: hook[1], MARK: mark})
    proc = subprocess.Popen([sys.executable, "-m", "studio", *command, "--quiet"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    started = time.monotonic()
    try:
        _out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # the survivors would wait in gloo for its 120 s timeout: the launcher stops them as soon as a peer died
    assert time.monotonic() - started < 90
    assert proc.returncode == 3, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"studio: error: {sentence}"), lines
    assert lines[0].endswith("the other ranks were stopped")
    wait_for(lambda: not left_behind(mark), 5, "the ranks to be gone")


@pytest.mark.slow
@pytest.mark.parametrize("which", ["allreduce", "dlrm"])
def test_cancel_stops_every_rank(which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)
    flag = threading.Event()
    texts: list[str] = []

    def seen(report) -> None:  # noqa: ANN001 - a Progress report
        texts.append(report.text)
        if "p = 2" in report.text or "step 5/" in report.text:  # the ranks are working (for minutes more)
            flag.set()

    if which == "allreduce":
        from studio.engine.tasks.allreduce import run

        request: object = AllreduceRequest(ranks=(2, 3), sizes=(4096, 64 << 20), repeats=20)
    else:
        from studio.engine.tasks.dlrm import run  # type: ignore[assignment]

        request = DlrmRequest(rows=1000, steps=10_000)
    started = time.monotonic()
    with pytest.raises(Cancelled):
        run(request, Progress(seen, flag.is_set, interval=0.0))  # type: ignore[arg-type]
    assert time.monotonic() - started < 120
    wait_for(lambda: not left_behind(mark), 5, f"the ranks to be gone ({texts[-3:]})")
