"""The lab's processes started with subprocess (the parallel ranks, the all-reduce and DLRM rank groups, the async
SGD study's processes) that die with an error carry their last stderr lines into the failure (issue 33); one killed
from outside does not (its stderr knows nothing of why), so the CLI's one line stays one line."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile

import pytest

from studio.core.errors import RunFailed
from studio.engine.async_sgd.launch import Child
from studio.engine.jobs import child_stderr
from studio.engine.jobs.rank_group import RankGroup


def _child(code: str) -> Child:
    err = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=err, text=True)
    proc.wait(timeout=60)
    return Child("worker 1", proc, err)


def test_a_parallel_rank_that_fails_names_itself_and_its_last_lines() -> None:
    spec = {"request": {"device": "cpu", "dataset": "no_such_dataset", "seed": 0}, "plan": []}
    ranks = RankGroup("studio.engine.parallel.rank", 1, spec, "parallel rank")
    with pytest.raises(RunFailed) as err:
        for _message in ranks.messages(lambda: "loading the data"):
            pass
    first, *rest = str(err.value).splitlines()
    assert first == ("parallel rank 0 exited with code 1 during loading the data; the other ranks were stopped; "
                     "its last lines on stderr:")
    assert rest[-1].startswith("studio.core.errors.ConfigError: unknown dataset 'no_such_dataset'")
    assert 1 < len(rest) <= child_stderr.TAIL_LINES


def test_a_rank_group_rank_that_fails_names_itself_and_its_last_lines() -> None:
    """The all-reduce and DLRM pages' ranks: here a module that refuses the rank's arguments (exit 2, its usage)."""
    group = RankGroup("json.tool", 1, {}, "test rank")
    with pytest.raises(RunFailed) as err:
        for _message in group.messages(lambda: "start-up"):
            pass
    first, *rest = str(err.value).splitlines()
    assert first == ("test rank 0 exited with code 2 during start-up; the other ranks were stopped; its last lines "
                     "on stderr:")
    assert rest[0].startswith("usage:") and "json.tool: error:" in rest[-1]


def test_an_async_process_that_exits_with_an_error_carries_its_last_lines() -> None:
    child = _child("import sys; print('loading', file=sys.stderr); sys.exit('RuntimeError: the port is gone')")
    death, words = child.death()
    assert death == f"worker 1 (pid {child.proc.pid}) exited with code 1"
    assert words.splitlines() == ["loading", "RuntimeError: the port is gone"]


def test_a_process_killed_from_outside_says_only_how_it_died() -> None:
    child = _child("import os, signal, sys; print('a warning', file=sys.stderr); os.kill(os.getpid(), signal.SIGKILL)")
    assert child.death() == (f"worker 1 (pid {child.proc.pid}) was killed by SIGKILL", "")
    assert child_stderr.speaks_for_its_death(-signal.SIGSEGV) and child_stderr.speaks_for_its_death(1)
    assert not child_stderr.speaks_for_its_death(-signal.SIGTERM) and not child_stderr.speaks_for_its_death(0)
