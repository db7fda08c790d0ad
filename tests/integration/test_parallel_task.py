"""The lab page's task (engine/tasks/parallel.py) as the GUI runs it: cancelled mid-run it stops promptly with
``Cancelled`` and leaves no rank process behind."""

from __future__ import annotations

import os
import threading
import time
import uuid

import pytest

from studio.core.contracts.parallel import ParallelRequest
from studio.core.contracts.progress import Cancelled, Progress
from studio.engine.tasks.parallel import run
from tests.reliability.test_parallel_rank_failure import _marked


@pytest.mark.slow
def test_cancel_stops_the_ranks(monkeypatch) -> None:
    mark = uuid.uuid4().hex
    monkeypatch.setenv("STUDIO_PARALLEL_TEST_MARK", mark)
    flag = threading.Event()
    texts: list[str] = []

    def seen(report) -> None:
        texts.append(report.text)
        if "single: step" in report.text:  # the ranks are training (for minutes more): ask to stop
            flag.set()

    request = ParallelRequest(modes=("single", "model", "ddp"), widths=(32, 32), batch_size=16, steps=50_000)
    started = time.monotonic()
    with pytest.raises(Cancelled):
        run(request, Progress(seen, flag.is_set, interval=0.0))
    assert time.monotonic() - started < 120
    deadline = time.monotonic() + 5
    while [p for p in _marked(mark) if p != os.getpid()] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in _marked(mark) if p != os.getpid()] == [], texts[-3:]
