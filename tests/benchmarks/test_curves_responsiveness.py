"""Issue 25 part B: the window never stalls while 50 runs × 20,000 steps are drawn, the x axis switched, the
smoothing changed and the view zoomed. A 10 ms QTimer heartbeat runs throughout; the longest gap between two of its
beats, less its interval, is the longest event-loop stall; beside it, the CPU time the GUI thread spent on the
action (on a busy machine a stall in wall-clock time is the GUI thread's work stretched by the other processes: the
load average is printed). The run store is written through the real
``RunStore.log_metrics`` (4 metrics a step, as a training run logs them); the curves view is driven as the main
window drives it (``load_runs`` on selection). The GUI process's resident memory is read from /proc.

Run: ``python -m pytest tests/benchmarks/test_curves_responsiveness.py -m benchmark -s``
(STUDIO_BENCH_RUNS / STUDIO_BENCH_STEPS change the 50 × 20,000; STUDIO_BENCH_HOME keeps the written store there
and reuses it the next time; STUDIO_BENCH_COLD=1 leaves the runs unpacked — interrupted, as a killed run, an import
or an old store's run — so the first selection reads them cold: copy such a store before each measurement, the
first read packs them).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore

RUNS = int(os.environ.get("STUDIO_BENCH_RUNS", "50"))
COLD = os.environ.get("STUDIO_BENCH_COLD") == "1"  # runs left unpacked (interrupted: killed, imported, or old)
ENDED_AS = "interrupted" if COLD else "finished"
STEPS = int(os.environ.get("STUDIO_BENCH_STEPS", "20000"))
BEAT_MS = 10
NAMES = ("train/loss", "train/acc", "lr", "throughput")


def rss_mb(field: str = "VmRSS") -> float:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_store(home) -> tuple[RunStore, list[str]]:
    store = RunStore(home)
    ready = [r.id for r in store.list() if r.status == ENDED_AS]
    if len(ready) == RUNS:
        return store, sorted(ready)
    rng = np.random.default_rng(0)
    ids = []
    for i in range(RUNS):
        # a learning rate of its own: 50 lines, not a seed group drawn as one band (runs alike but for the seed are)
        run = store.create_run(RunConfig().with_overrides([f"train.batch_size={32 * (1 + i % 4)}",
                                                           f"optimizer.lr={1e-3 * (1 + i / 100):.6g}"]), f"run {i}")
        steps = np.arange(1, STEPS + 1)
        loss = 2.3 * np.exp(-steps / (STEPS / 4)) + 0.1 * rng.normal(size=STEPS) ** 2
        acc = 1 - loss / 2.5
        walls = 1.7e9 + 0.05 * steps
        rows = []
        for name, values in zip(NAMES, (loss, acc, np.full(STEPS, 1e-3), np.full(STEPS, 5000.0)), strict=True):
            rows += [(int(s), name, float(v), float(w)) for s, v, w in zip(steps, values, walls, strict=True)]
        epochs = np.arange(STEPS // 10, STEPS + 1, STEPS // 10)
        rows += [(int(s), "epoch", float(k + 1), float(1.7e9 + 0.05 * s)) for k, s in enumerate(epochs)]
        rows.sort(key=lambda r: r[0])
        store.log_metrics(run.id, rows)
        store.set_status(run.id, ENDED_AS)
        ids.append(run.id)
    return store, ids


class Heartbeat:
    """Beats every BEAT_MS; ``stall()`` is the longest gap since ``reset`` less the interval."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.reset()
        self.timer.start()

    def reset(self) -> None:
        self.last = time.perf_counter()
        self.worst = 0.0

    def _beat(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stall_ms(self) -> float:
        return max(0.0, self.worst * 1000 - BEAT_MS)


@pytest.mark.benchmark
def test_curves_stay_responsive_with_50_long_runs(qtbot, tmp_path):
    from studio.gui.plots.curves import CurvesView

    t = time.perf_counter()
    store, ids = write_store(os.environ.get("STUDIO_BENCH_HOME") or tmp_path)
    print(f"\nstore: {RUNS} runs × {STEPS} steps × {len(NAMES)} metrics written in {time.perf_counter() - t:.1f} s")
    read_s: list[float] = []
    real_curves = store.curves

    def timed_curves(run_ids, names=None):
        t0 = time.perf_counter()
        out = real_curves(run_ids, names)
        read_s.append(time.perf_counter() - t0)
        return out

    store.curves = timed_curves  # type: ignore[method-assign]
    base = rss_mb()
    view = CurvesView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.wait(200)  # idle before the first measurement
    beat = Heartbeat()
    rows = []

    def measure(what: str, act) -> None:
        qtbot.wait(50)  # idle before each measurement
        beat.reset()
        t0, cpu0 = time.perf_counter(), time.thread_time()
        with qtbot.waitSignal(view.curves_drawn, timeout=120_000):
            act()
        drawn = time.perf_counter() - t0
        qtbot.wait(50)  # the paint that follows
        gui_cpu = time.thread_time() - cpu0  # waiting for the signal sleeps: only the GUI thread's own work counts
        points = sum(view.point_count(r, n) for r in view.series for n in NAMES)
        rows.append((what, drawn, beat.stall_ms(), gui_cpu * 1000, points, rss_mb() - base))

    measure("select 1 run", lambda: view.load_runs(store, ids[:1]))
    measure("select 10 runs", lambda: view.load_runs(store, ids[:10]))
    read_s.clear()
    measure(f"select {RUNS} runs", lambda: view.load_runs(store, ids))
    read_total = sum(read_s)
    measure("x axis → samples", lambda: view.set_x_mode("samples"))
    measure("x axis → epoch", lambda: view.set_x_mode("epoch"))
    measure("x axis → step", lambda: view.set_x_mode("step"))
    measure("smoothing 0.6", lambda: view.smooth_box.setValue(0.6))
    measure("smoothing 0.9", lambda: view.smooth_box.setValue(0.9))
    measure("zoom in 10×", lambda: view.plots["loss"].setXRange(STEPS * 0.4, STEPS * 0.5, padding=0))
    measure("log x", lambda: view.set_log_x(True))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'action':<22}{'drawn (s)':>10}{'longest stall (ms)':>20}{'GUI CPU (ms)':>14}{'points drawn':>14}"
          f"{'RSS +MB':>9}")
    for what, drawn, stall, cpu, points, mem in rows:
        print(f"{what:<22}{drawn:>10.2f}{stall:>20.0f}{cpu:>14.0f}{points:>14}{mem:>9.0f}")
    full = sum(view.model.full_count(r, n) for r in view.series for n in NAMES)
    print(f"store read for {RUNS} runs: {read_total:.2f} s of the select; full-resolution points held: {full}; "
          f"GUI process RSS {rss_mb():.0f} MB (peak {rss_mb('VmHWM'):.0f} MB, {base:.0f} MB before the view)")
    print("targets: no stall > 100 ms; 50 runs drawn ≤ 1 s (before: 11.2 s frozen, x switch 2.3 s, smoothing 2.0 s)")
    assert all(points > 0 for *_, points, _m in rows)
    assert len({r for r in view.series if view.point_count(r, NAMES[0])}) == RUNS  # every run a line of its own
