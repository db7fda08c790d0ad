"""Issue 39.6: Ctrl+C on a machine so busy that the graceful stop outlasts the launcher's grace period. The ranks
are killed in the end-of-run evaluation (made to stall here by the test-only fault point ``evaluate.end``,
core/host/fault_points.py); the run must still hold the summary so far and a checkpoint at the step it stopped,
not an empty summary and a checkpoint of many steps before."""

from __future__ import annotations

import os
import signal

from studio.core.contracts import layout
from tests.reliability.conftest import LONG, finish, runs, start_train, wait_training


def test_a_forced_stop_keeps_the_summary_and_the_newest_state(home):
    env = {**os.environ, "STUDIO_TEST_FAULT": "evaluate.end:1:sleep=60"}  # longer than the 8 s grace
    proc = start_train(*LONG, "--set", "train.metric_interval=1", env=env)
    wait_training(home, min_step=30)
    os.kill(proc.pid, signal.SIGINT)  # Ctrl+C
    code, result, err = finish(proc, timeout=60)
    assert code == 0 and result["status"] == "stopped", err
    run = runs(home)[0]
    assert run.status == "stopped" and "forced after a timeout" in run.message, run.message
    steps = run.summary.get("steps")
    assert steps and steps >= 30 and run.summary.get("epochs") is not None, run.summary
    assert run.summary.get("train_loss") is not None
    assert layout.step_of(run.last_checkpoint) == steps  # the state at the step it stopped, not an older one
    assert not layout.final_path(run.dir).exists()  # the end never came
