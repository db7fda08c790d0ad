"""The one process-job base: a job that finishes, one that fails, one that is cancelled, one that
ignores cancel, one whose process dies, each through the same ProcessJob; every job type is one."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from studio.core.contracts import protocol, tasks
from studio.core.contracts.jobs import DemoRequest, SummaryRequest
from studio.engine.jobs.process_job import ProcessJob, TaskJob, task_job
from studio.engine.tasks.data_import import ImportJob
from studio.engine.tasks.demo import demo_job
from studio.engine.tasks.landscape_job import LandscapeJob
from studio.engine.training.launcher import Job


def _follow(job, timeout=120.0):
    messages = []
    deadline = time.monotonic() + timeout
    while not job.finished and time.monotonic() < deadline:
        messages += job.poll(timeout=0.1)
    assert job.finished, f"{job.label} still {job.state}"
    return messages


def test_every_job_type_is_a_process_job():
    for cls in (Job, LandscapeJob, ImportJob, TaskJob):
        assert issubclass(cls, ProcessJob)
    assert isinstance(demo_job(DemoRequest("optimizer_race")), ProcessJob)
    assert isinstance(task_job(tasks.SUMMARY, SummaryRequest({})), ProcessJob)


def test_a_job_that_finishes_reports_progress_with_an_eta_and_its_result():
    job = TaskJob("tests.unit.job_targets:count", {"n": 20}, label="count").start()
    messages = _follow(job)
    assert job.state == "finished" and job.exit_code == 0 and job.error is None
    assert job.result["counted"] == 20
    progress = [m for m in messages if m["type"] == protocol.PROGRESS]
    assert progress and progress[-1]["fraction"] == 1.0
    assert any(m["eta_s"] is not None for m in progress)  # an ETA as soon as there is a rate
    assert messages[-1]["type"] == protocol.JOB_ENDED and messages[-1]["status"] == "finished"
    assert job.fraction == 1.0 and multiprocessing.active_children() == []


@pytest.mark.parametrize(("target", "words", "code"), [
    ("bad_input", "the file has no labels", 2),
    ("bug", "the count failed: KeyError", 3),
])
def test_a_job_that_fails_says_why_in_words(target, words, code):
    job = TaskJob(f"tests.unit.job_targets:{target}", label="count").start()
    messages = _follow(job)
    assert job.state == "failed" and words in job.error and job.exit_code == code
    assert messages[-1]["type"] == protocol.JOB_ENDED and words in messages[-1]["message"]


def test_a_job_whose_process_dies_fails_with_a_death_note():
    job = TaskJob("tests.unit.job_targets:crash", label="count").start()
    _follow(job)
    assert job.state == "failed" and "killed by signal 9" in job.error


def test_a_task_that_dies_without_a_word_carries_its_last_stderr_lines():
    """Issue 33: a task child that exits before it can report (native code, ``os._exit``) is not a bare "exited
    with code 1": its last lines on stderr, below Python and above it, are in the failure message."""
    job = TaskJob("tests.unit.job_targets:dies_without_a_word", label="count").start()
    kept = job.stderr_path
    messages = _follow(job)
    assert job.state == "failed" and job.exit_code == 3
    assert job.error == ("the count process exited with code 1 without reporting an error; its last lines on "
                         "stderr:\nloading the weights\nlibfoo.so: undefined symbol: bar")
    assert messages[-1]["message"] == job.error
    assert kept and not os.path.exists(kept)  # the file is gone: what mattered is in the message


def test_a_cancelled_job_stops_by_itself():
    job = TaskJob("tests.unit.job_targets:forever", label="count").start()
    while job.fraction < 0.5:
        job.poll(timeout=0.1)
    t0 = time.monotonic()
    job.cancel()
    messages = _follow(job, timeout=30)
    assert job.state == "stopped" and job.exit_code == 0 and time.monotonic() - t0 < job.grace_s
    assert job.processes[0].exitcode == 0  # it ended itself, nobody killed it
    assert messages[-1]["status"] == "stopped"


def test_a_job_that_ignores_cancel_is_killed_after_the_grace_period():
    job = TaskJob("tests.unit.job_targets:forever", {"ignore_cancel": True}, label="count", grace_s=0.5).start()
    while job.fraction < 0.5:
        job.poll(timeout=0.1)
    job.cancel()
    _follow(job, timeout=30)
    assert job.state == "stopped" and job.processes[0].exitcode != 0
