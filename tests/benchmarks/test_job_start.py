"""What a new process costs, cold (spawn: it imports torch itself) against warm (forked from the warm back
end, torch already loaded), measured side by side, idle and beside one competing CPU-bound program:

- a bare job that has torch and the training code ready (what a new rank or a demo pays before it works);
- the same with a busy machine's thread plan (2 threads, OMP_WAIT_POLICY=PASSIVE: the PASSIVE server);
- Train → first curve point (the default run, from the click to its first metrics);
- the optimizer race demo → its first frame (a live frame, or the whole race, whichever comes first).

Run: ``python -m pytest tests/benchmarks/test_job_start.py -m benchmark -s`` (or ``python
tests/benchmarks/test_job_start.py``). Compare the ratios; absolute times depend on the machine's load.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import pytest

from studio.core.config import RunConfig
from studio.core.contracts import protocol
from studio.core.contracts.jobs import DemoRequest
from studio.core.contracts.tasks import READY
from studio.core.host.threads import ThreadPlan
from studio.core.runs.store import RunStore
from studio.engine.jobs import backend
from studio.engine.jobs.process_job import TaskJob
from studio.engine.tasks.demo import demo_job
from studio.engine.training.launcher import Job
from tests.benchmarks.cpu_hog import cpu_hog

ROUNDS = 3


def _until(job, done) -> float:
    """Seconds from start() until a message satisfies ``done`` (then the job is cancelled)."""
    t0 = time.perf_counter()
    job.start()
    while not job.finished:
        for message in job.poll(timeout=0.05):
            if done(message):
                elapsed = time.perf_counter() - t0
                job.cancel()
                job.wait(60)
                return elapsed
    raise AssertionError(f"{job.label} ended ({job.state}: {job.error}) before the awaited message")


def bare_job(plan: ThreadPlan | None = None) -> float:
    job = TaskJob(READY.target, label=READY.label, threads=plan or ThreadPlan(1))
    return _until(job, lambda m: m["type"] == protocol.JOB_ENDED or m["type"] == protocol.RESULT)


def busy_plan_job() -> float:
    """A busy machine's plan (2 threads, OpenMP PASSIVE): before issue 11's second server it was always
    spawned cold, whatever the back end; now it forks from the PASSIVE server."""
    return bare_job(ThreadPlan(2, "PASSIVE"))


def first_curve_point(store: RunStore) -> float:
    job = Job(RunConfig(), store, spare_cores=1)
    return _until(job, lambda m: m["type"] == protocol.METRICS)


def first_demo_frame() -> float:
    return _until(demo_job(DemoRequest("optimizer_race")), lambda m: m["type"] in (protocol.FRAME, protocol.RESULT))


CASES = {"new process, torch ready": bare_job, "same, busy plan (PASSIVE)": busy_plan_job,
         "train → first curve point": first_curve_point,
         "optimizer race → first frame": first_demo_frame}


def measure(rounds: int = ROUNDS) -> dict[tuple[str, str, str], list[float]]:
    """{(case, load, start method): seconds per round}; cold and warm interleaved in each round."""
    os.environ.setdefault("STUDIO_HOME", tempfile.mkdtemp(prefix="studio-bench-"))
    store = RunStore()
    backend.start_warm()
    bare_job()  # the server has imported torch (in the app it does while the person looks at the window)
    busy_plan_job()  # and the PASSIVE one (started by the first job that needs it on 2 cores)
    times: dict[tuple[str, str, str], list[float]] = {}
    for load in ("idle", "1 CPU hog"):
        with cpu_hog(load != "idle"):
            for _ in range(rounds):
                for how in ("cold (spawn)", "warm"):
                    if how == "warm":
                        backend.start_warm()
                    else:
                        backend.stop_warm()
                    for name, case in CASES.items():
                        args = (store,) if case is first_curve_point else ()
                        times.setdefault((name, load, how), []).append(case(*args))
    backend.stop_warm()
    return times


def report(times: dict[tuple[str, str, str], list[float]]) -> str:
    lines = [f"load average {os.getloadavg()[0]:.1f} at the end",
             f"{'':32} {'load':10} {'cold (spawn)':>13} {'warm':>8} {'cold/warm':>10}"]
    for name in CASES:
        for load in ("idle", "1 CPU hog"):
            cold = statistics.median(times[(name, load, "cold (spawn)")])
            warm = statistics.median(times[(name, load, "warm")])
            lines.append(f"{name:32} {load:10} {cold:12.2f}s {warm:7.2f}s {cold / warm:9.1f}×")
    return "\n".join(lines)


@pytest.mark.benchmark
def test_warm_processes_start_faster_than_spawned_ones() -> None:
    times = measure()
    print("\n" + report(times))
    for load in ("idle", "1 CPU hog"):
        assert statistics.median(times[("new process, torch ready", load, "warm")]) < \
            statistics.median(times[("new process, torch ready", load, "cold (spawn)")])


if __name__ == "__main__":
    print(report(measure()))
