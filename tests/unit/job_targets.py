"""Functions the job tests run in child processes (importable by module path)."""

from __future__ import annotations

import os
import signal
import sys
import time

from studio.core.errors import DataError


def count(progress, n: int = 20, pause: float = 0.02) -> dict:
    for i in range(n):
        time.sleep(pause)  # pretend work
        progress((i + 1) / n, f"step {i + 1}/{n}")
    return {"counted": n, "pid": os.getpid()}


def forever(progress, ignore_cancel: bool = False) -> None:
    while True:
        time.sleep(0.02)  # pretend work that never ends
        if ignore_cancel:  # reports without ever checking the cancel flag
            progress.fraction = 0.5
            progress.callback(progress.report())
        else:
            progress(0.5, "working")


def bad_input(progress) -> None:
    raise DataError("the file has no labels; name the label column")


def bug(progress) -> None:
    return {}["missing"]


def crash(progress, how: str = "kill") -> None:
    progress(0.1, "about to crash")
    time.sleep(0.2)  # it dies mid-work, after a report went out
    if how == "segfault":
        import ctypes

        ctypes.string_at(0)
    os.kill(os.getpid(), signal.SIGKILL)


def warm_check(progress) -> dict:
    """Whether torch was already imported when the child started (the warm back end preloads it)."""
    return {"torch_preloaded": "torch" in sys.modules, "pid": os.getpid()}


def first_optimizer(progress) -> dict:
    """The modules a warm child's first optimizer imports (PyTorch's Optimizer imports torch._dynamo once) and the
    seconds it takes."""
    import torch

    before = set(sys.modules)
    started = time.perf_counter()
    torch.optim.Adam([torch.zeros(2, requires_grad=True)], lr=1e-3)
    return {"imported": sorted(set(sys.modules) - before), "seconds": time.perf_counter() - started}


def wait_policy_check(progress) -> dict:
    """The OpenMP wait policy this child's libgomp read: the warm server's, when it first imported torch."""
    from studio.engine.jobs import warm

    return {"torch_loaded_by_server": warm.TORCH_LOADED_HERE, "wait_policy": warm.WAIT_POLICY,
            "pid": os.getpid(), "parent": os.getppid()}


def idle_spin(progress, seconds: float = 0.6) -> dict:
    """CPU time OpenMP's worker threads burn between tiny parallel operations 2 ms apart: spinning threads
    burn most of the gaps, sleeping (PASSIVE) ones almost nothing. Seconds of worker CPU per second."""
    import threading

    import torch

    ticks = os.sysconf("SC_CLK_TCK")

    def workers_cpu() -> float:
        total = 0.0
        for tid in os.listdir("/proc/self/task"):
            if int(tid) == threading.get_native_id():
                continue
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total

    x = torch.ones(2_000_000)
    x.add_(1)  # the OpenMP team exists
    before, t0 = workers_cpu(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        x.add_(1)
        time.sleep(0.002)  # the measured pattern: short bursts of work with idle gaps between
    return {"spin": (workers_cpu() - before) / (time.perf_counter() - t0), "threads": torch.get_num_threads()}


def dies_without_a_word(progress) -> None:
    """Writes to stderr below Python (as native code does) and above it, then exits with no report."""
    progress(0.1, "loading")
    print("loading the weights", file=sys.stderr)
    os.write(2, b"libfoo.so: undefined symbol: bar\n")
    os._exit(1)
