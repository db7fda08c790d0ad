"""The CPU-thread policy, in one place: how many torch/OpenMP threads a process uses, and whether its
idle OpenMP threads spin.

A desktop app shares the machine. Torch's OpenMP threads spin-wait between parallel regions; on a core
another program holds, a spinning thread steals the time the working thread needs, and a run slowed
~3× more than the CPU it lost (measured, docs/developer/benchmarks.md). The policy, decided when a job starts:

- keep ``spare`` cores for the GUI (the Session asks for one) and split the rest among the job's
  processes (at least one thread each);
- measure how many cores other programs keep busy (the CPU used over the last second, read by a background
  sampler the warm back end starts; else over a 0.2 s sample taken then): when they are busy
  and a process has more than one thread, its idle OpenMP threads sleep (``OMP_WAIT_POLICY=PASSIVE``);
  idle, they spin (PASSIVE costs ~2.6× on an idle machine).

``apply`` sets the numbers inside the child (it imports torch). OpenMP reads its wait policy when torch
is first imported, so a PASSIVE plan forks from the warm back end's PASSIVE server (``engine/jobs/backend.py``).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

BUSY_THRESHOLD = 0.5  # cores used by other programs before we call the machine busy
SHORT_JOB_MAX_THREADS = 4  # demos, previews, summaries: tiny models gain nothing from more


@dataclass(frozen=True)
class ThreadPlan:
    """Threads per process and the OpenMP wait policy ("" = OpenMP's default, or "PASSIVE")."""

    threads: int = 1
    wait_policy: str = ""
    cores: int = 1
    busy_cores: float = 0.0  # what other programs used when the plan was made
    nice: int = 0  # lower the process's priority by this much (a run beside the GUI; never fewer threads)

    def env(self) -> dict[str, str]:
        """Environment for a child that imports torch after reading it."""
        return {"OMP_WAIT_POLICY": self.wait_policy} if self.wait_policy else {}

    def describe(self) -> str:
        wait = f", OpenMP {self.wait_policy.lower()} wait" if self.wait_policy else ""
        return f"{self.threads} thread{'s' if self.threads != 1 else ''} ({self.busy_cores:.1f} of {self.cores} " \
               f"cores busy{wait})"


def cpu_count() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cpu_times() -> tuple[float, float] | None:
    """(busy, total) jiffies of the whole machine from /proc/stat (None where there is none)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [float(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    return sum(fields) - idle, sum(fields)


_last_sample: list[float] = [-1e9, 0.0]  # (when, busy cores): jobs started together share one sample
SAMPLE_TTL_S = 2.0
SAMPLER_EVERY_S = 1.0  # the background sampler's period (start_sampler)
_readings: list[tuple[float, float, float]] = []  # the sampler's last two (when, busy jiffies, total jiffies)
_sampler: list[threading.Thread] = []


def busy_cores(sample_s: float = 0.2) -> float:
    """Cores other programs keep busy now: over the background sampler's last second when it runs (a job then
    starts without waiting), else sampled from /proc/stat over ``sample_s`` (the load average reacts in minutes;
    a sample younger than SAMPLE_TTL_S is reused); elsewhere the load average."""
    sampled = _sampled_busy()
    if sampled is not None:
        return sampled
    if time.monotonic() - _last_sample[0] < SAMPLE_TTL_S:
        return _last_sample[1]
    busy = _measure_busy(sample_s)
    _last_sample[:] = [time.monotonic(), busy]
    return busy


def start_sampler() -> None:
    """Read /proc/stat every SAMPLER_EVERY_S in a daemon thread (once per process; the warm back end starts it
    with the window), so ``busy_cores`` needs no 0.2 s sample when a job starts: that sample was most of a warm
    Train's wait before the first step (docs/developer/benchmarks.md). Where there is no /proc/stat: nothing."""
    if _sampler or _cpu_times() is None:
        return
    thread = threading.Thread(target=_sample_forever, name="studio-load-sampler", daemon=True)
    _sampler.append(thread)
    thread.start()


def _sample_forever() -> None:
    while True:
        reading = _cpu_times()
        if reading is not None:
            _readings[:] = [*_readings[-1:], (time.monotonic(), *reading)]
        time.sleep(SAMPLER_EVERY_S)


def _sampled_busy() -> float | None:
    """Busy cores between the sampler's last two readings, when the newer is fresh (None: no such pair)."""
    pair = list(_readings)
    if len(pair) < 2 or time.monotonic() - pair[1][0] > SAMPLE_TTL_S:
        return None
    return _share((pair[0][1], pair[0][2]), (pair[1][1], pair[1][2]))


def _measure_busy(sample_s: float) -> float:
    cores = cpu_count()
    first = _cpu_times()
    if first is None:
        try:
            return min(float(cores), os.getloadavg()[0])
        except OSError:
            return 0.0
    time.sleep(sample_s)
    second = _cpu_times()
    if second is None:
        return 0.0
    return _share(first, second)


def _share(first: tuple[float, float], second: tuple[float, float]) -> float:
    """Busy cores between two /proc/stat readings (busy, total jiffies)."""
    if second[1] <= first[1]:
        return 0.0
    cores = cpu_count()
    share = (second[0] - first[0]) / (second[1] - first[1])
    return max(0.0, min(float(cores), share * (os.cpu_count() or cores)))


def plan(requested: int = 0, processes: int = 1, spare: int = 0, busy: float | None = None,
         short: bool = False) -> ThreadPlan:
    """The threads for each of ``processes`` processes of a job.

    ``requested`` > 0 (``hardware.threads``) fixes the count; ``spare`` cores stay for the GUI; ``busy``
    (cores used by other programs) is measured unless given; ``short`` jobs use at most
    SHORT_JOB_MAX_THREADS.
    """
    cores = cpu_count()
    if busy is None:
        env = os.environ.get("STUDIO_BUSY_CORES")  # tests and benchmarks pin the situation
        busy = float(env) if env else busy_cores()
    # Measured here (docs/developer/benchmarks.md): giving threads up for another program's load cost more than
    # it saved (1 thread: 2.8× slower than 2 on a shared machine), while PASSIVE waiting removed most of a
    # competing program's penalty. So the count keeps every core but the GUI's; the load picks the wait.
    threads = requested or max(1, (cores - spare) // max(1, processes))
    if short and not requested:
        threads = min(threads, SHORT_JOB_MAX_THREADS)
    forced = os.environ.get("OMP_WAIT_POLICY", "").upper()
    if forced:
        wait = forced  # the person chose: keep it
    else:
        wait = "PASSIVE" if threads > 1 and busy >= BUSY_THRESHOLD else ""
    return ThreadPlan(threads, wait, cores, round(busy, 2))


def apply(p: ThreadPlan) -> None:
    """Use the plan in this process, before its first parallel operation: through torch if it is
    imported already (a warm child), else through the environment torch reads when it is imported."""
    import sys

    if p.nice > 0 and hasattr(os, "nice"):
        try:
            os.nice(p.nice)
        except OSError:  # not allowed here: the run is only less polite
            pass
    torch = sys.modules.get("torch")
    if torch is None:
        os.environ["OMP_NUM_THREADS"] = str(p.threads)
        os.environ.update(p.env())
    elif torch.get_num_threads() != p.threads:
        torch.set_num_threads(p.threads)
