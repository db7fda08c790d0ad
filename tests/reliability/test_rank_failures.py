"""Faults 4–5: a rank that hangs, a rank that dies — named, in words, with `error` in --json."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.reliability.conftest import LONG, error_lines, finish, rank_pids, runs, start_train, wait_training


def test_stalled_rank_fails_the_run_naming_it(home):
    """A rank stopped with SIGSTOP: within train.stall_timeout the run fails, naming that rank."""
    proc = start_train(*LONG, "--set", "hardware.processes=2", "--set", "train.stall_timeout=3")
    run_id = wait_training(home)
    ranks = rank_pids(home, run_id)
    os.kill(ranks[1], signal.SIGSTOP)
    sent = time.monotonic()
    code, result, err = finish(proc, timeout=40)
    assert time.monotonic() - sent < 20
    assert code == 3
    assert result["status"] == "failed" and "rank 1" in result["error"] and "SIGSTOP" in result["error"]
    assert error_lines(err) == [f"studio: error: {result['error']}"]
    assert runs(home)[0].status == "failed"


@pytest.mark.parametrize("victim", [1, pytest.param(0, marks=pytest.mark.slow)])
def test_dead_rank_is_named_with_its_signal(home, victim):
    """Killing rank 1 reports rank 1 (not rank 0's lost connection), killing rank 0 reports rank 0 (not
    gloo's 'Connection closed by peer'); the signal by name; exit 3; `error` in --json."""
    proc = start_train(*LONG, "--set", "hardware.processes=2")
    run_id = wait_training(home)
    os.kill(rank_pids(home, run_id)[victim], signal.SIGKILL)
    code, result, err = finish(proc, timeout=40)
    assert code == 3
    assert result["error"].startswith(f"training process rank {victim} was killed by SIGKILL"), result["error"]
    assert "GLHF" not in result["error"] and "Connection closed" not in result["error"]
    assert error_lines(err) == [f"studio: error: {result['error']}"]
    run = runs(home)[0]
    assert run.status == "failed" and run.message == result["error"]
