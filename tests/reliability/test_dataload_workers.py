"""No DataLoader worker outlives the input-pipeline sweep: cancelled from the caller, the job cancelled from the
GUI's side, or the job's process killed outright — the measuring process and every worker are gone within
seconds, and the cancel or the death is said in words."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from studio.core.contracts.dataload import DataloadRequest
from studio.core.contracts.progress import Cancelled
from studio.core.host import procs
from studio.engine.dataload.sweep import run_sweep

# 0.02 s a decoded item, batch 8, 2 workers: a configuration takes many seconds, so the workers are alive when
# the fault comes
SLOW = DataloadRequest(workers="2", steps=400, epochs=2, batch_size=8, device_resident=False,
                       extra={"slow_item_s": 0.02})


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    from studio.core.host.paths import resource
    from studio.engine.dataload.pngs import write_pngs

    target = tmp_path_factory.mktemp("pngs")
    with np.load(resource("data", "fashion_mnist_small.npz")) as npz:
        write_pngs(npz["x_train"][:60, None], npz["y_train"][:60], [str(c) for c in npz["classes"]], target)
    return target


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc's parent links)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, parent in parents.items() if parent == p]
        out += kids
        frontier += kids
    return out


def still_alive(idents: list[str], timeout: float) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(procs.alive(i) for i in idents):
            return []
        time.sleep(0.05)
    return [i for i in idents if procs.alive(i)]


def wait_for_workers(root: int, count: int, timeout: float = 90) -> list[str]:
    """Identities of ``root``'s descendants once at least ``count`` exist (the measurement and its workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = descendants(root)
        if len(found) >= count:
            return [procs.identity(p) for p in found]
        time.sleep(0.1)
    raise AssertionError(f"the workers did not start within {timeout} s")


pytestmark = pytest.mark.skipif(not Path("/proc").exists(), reason="reads process trees from /proc")


def test_a_cancelled_sweep_leaves_no_worker(folder):
    started: list = []
    seen: list[str] = []

    def progress(_fraction: float, text: str) -> None:
        if started and text.startswith("2 workers") and not seen:
            kids = descendants(started[0].pid)
            if len(kids) >= 2:  # the workers run
                seen.extend(procs.identity(p) for p in [started[0].pid, *kids])
        if seen:
            raise Cancelled("the input-pipeline sweep was cancelled")

    request = DataloadRequest(**{**SLOW.__dict__, "folder": str(folder)})
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        run_sweep(request, progress, on_start=started.append)
    assert len(seen) >= 3  # the measurement and its 2 workers were alive when it was cancelled
    assert still_alive(seen, timeout=2) == []  # at once: the whole process group is killed
    assert time.monotonic() - t0 < 120


def test_a_cancelled_job_leaves_no_worker(folder):
    from studio.core.contracts.tasks import DATALOAD
    from studio.engine.jobs.process_job import task_job

    job = task_job(DATALOAD, DataloadRequest(**{**SLOW.__dict__, "folder": str(folder)})).start()
    try:
        tree = wait_for_workers(job.processes[0].pid, 3)
        job.cancel()
        assert job.wait(timeout=30) == "stopped"
    finally:
        job.kill()
    assert still_alive(tree, timeout=2) == []


def test_a_killed_job_process_takes_its_workers_with_it(folder):
    """SIGKILL to the task's process (no Python cleanup runs there): the measurement notices its parent is
    gone and kills its own process group, workers included; the job says how its process died."""
    from studio.core.contracts.tasks import DATALOAD
    from studio.engine.jobs.process_job import task_job

    job = task_job(DATALOAD, DataloadRequest(**{**SLOW.__dict__, "folder": str(folder)})).start()
    try:
        tree = wait_for_workers(job.processes[0].pid, 3)
        os.kill(job.processes[0].pid, signal.SIGKILL)
        assert job.wait(timeout=30) == "failed"
        assert "killed by signal 9" in (job.error or "")
        # within 2 s: the measurement's parent watch (every 0.2 s), not the workers' own check of their parent
        # (torch's, every 5 s) nor a broken pipe at the next progress line
        assert still_alive(tree, timeout=2) == []
    finally:
        job.kill()


def test_a_killed_worker_fails_the_sweep_naming_it_and_nothing_is_left(folder):
    """SIGKILL to one DataLoader worker: the sweep fails with a sentence naming the worker that died, and the
    measurement and the other worker are gone."""
    from studio.core.errors import RunFailed

    started: list = []
    tree: list[str] = []

    def progress(_fraction: float, text: str) -> None:
        if started and text.startswith("2 workers") and not tree:
            kids = descendants(started[0].pid)
            if len(kids) >= 2:
                tree.extend(procs.identity(p) for p in [started[0].pid, *kids])
                os.kill(kids[-1], signal.SIGKILL)

    request = DataloadRequest(**{**SLOW.__dict__, "folder": str(folder)})
    with pytest.raises(RunFailed) as err:
        run_sweep(request, progress, on_start=started.append)
    message = str(err.value)
    # torch's SIGCHLD handler raises wherever the measurement is, so the sentence comes either from the
    # measurement ("… failed: …") or from its exit ("… exited with code 1: RuntimeError: …")
    assert message.startswith("the input-pipeline measurement ") and "DataLoader worker (pid" in message, message
    assert ("exited unexpectedly" in message or "killed by signal" in message) and "\n" not in message
    assert tree and still_alive(tree, timeout=2) == []


def test_a_worker_death_seen_as_a_reset_connection_names_the_worker():
    """Issue 39.6: a DataLoader worker killed mid-batch sometimes reaches the measurement as a pipe's "Connection
    reset by peer", which names nobody: the sentence names the worker that died, from the live iterator."""
    import multiprocessing
    from types import SimpleNamespace

    from studio.engine.dataload.measure import describe_failure

    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=time.sleep, args=(60,)) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        os.kill(workers[1].pid, signal.SIGKILL)
        iterator = SimpleNamespace(_workers=workers)  # what torch's multi-process iterator holds
        said = describe_failure(ConnectionResetError(104, "Connection reset by peer"), iterator, "2 workers")
        assert said == (f"the input-pipeline measurement failed: DataLoader worker 1 (pid {workers[1].pid}) was "
                        "killed by SIGKILL while measuring 2 workers ([Errno 104] Connection reset by peer)")
        assert describe_failure(ValueError("a file changed"), SimpleNamespace(_workers=workers[:1]), "x") == \
            "the input-pipeline measurement failed: a file changed"  # nobody died: nobody named
    finally:
        for w in workers:
            w.kill()
            w.join()
