"""What watching a script costs, side by side in one run (docs/developer/benchmarks.md, "Your own script"):

1. the cost per logged value on the training thread: ``studio.track``'s ``run.log`` against
   ``torch.utils.tensorboard.SummaryWriter.add_scalar`` (and ``wandb`` offline, ``aim`` where installed), then the
   cost of getting everything to disk (``finish`` / ``close``);
2. a training loop's step time without logging and with ``run.log`` every step (blocks interleaved);
3. the delay from ``run.log`` in a script to the point in the window's curves (the writer's flush + the store
   follower's poll);
4. importing a folder of 1,000 TensorBoard runs (``studio import``), beside tbparse reading the same folder.

Run: ``python -m pytest tests/benchmarks/test_track_cost.py -m benchmark -s`` (``STUDIO_BENCH_TB_RUNS`` sets the
folder's size, default 1000).
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from studio.core.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
CALLS = 20_000  # log calls, 2 values each
TB_RUNS = int(os.environ.get("STUDIO_BENCH_TB_RUNS", "1000"))


def _load() -> str:
    return f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}"


def _studio(tmp: Path) -> tuple[float, float]:
    import studio.track

    run = studio.track.init("bench", home=tmp / "studio")
    t = time.perf_counter()
    for step in range(CALLS):
        run.log({"train/loss": 1.0 / (step + 1), "lr": 0.1}, step=step)
    logged = time.perf_counter() - t
    run.finish()
    return logged, time.perf_counter() - t


def _tensorboard(tmp: Path) -> tuple[float, float]:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp / "tb"))
    t = time.perf_counter()
    for step in range(CALLS):
        writer.add_scalar("train/loss", 1.0 / (step + 1), step)
        writer.add_scalar("lr", 0.1, step)
    logged = time.perf_counter() - t
    writer.close()
    return logged, time.perf_counter() - t


def _wandb(tmp: Path) -> tuple[float, float]:
    import wandb

    run = wandb.init(mode="offline", dir=str(tmp), project="bench")
    t = time.perf_counter()
    for step in range(CALLS):
        run.log({"train/loss": 1.0 / (step + 1), "lr": 0.1}, step=step)
    logged = time.perf_counter() - t
    run.finish()
    return logged, time.perf_counter() - t


def _aim(tmp: Path) -> tuple[float, float]:
    import aim

    run = aim.Run(repo=str(tmp / "aim"))
    t = time.perf_counter()
    for step in range(CALLS):
        run.track({"train/loss": 1.0 / (step + 1), "lr": 0.1}, step=step)
    logged = time.perf_counter() - t
    run.close()
    return logged, time.perf_counter() - t


@pytest.mark.benchmark
def test_cost_per_logged_value(tmp_path: Path) -> None:
    tools = {"studio.track": _studio, "SummaryWriter": _tensorboard}
    for name, fn in (("wandb (offline)", _wandb), ("aim", _aim)):
        if importlib.util.find_spec(name.split()[0]) is not None:
            tools[name] = fn
    values = 2 * CALLS
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
    for rep in range(3):  # interleaved: load changes hit every tool alike
        for name, fn in tools.items():
            results[name].append(fn(tmp_path / f"{name.split()[0]}-{rep}"))
    base = statistics.median(r[0] for r in results["SummaryWriter"]) / values
    print(f"\n{values:,} values ({CALLS:,} calls of 2), median of 3 runs; {_load()}")
    print(f"{'tool':<16} {'µs/value (log)':>15} {'× SummaryWriter':>16} {'µs/value (to disk)':>19}")
    for name, runs in results.items():
        log = statistics.median(r[0] for r in runs) / values
        total = statistics.median(r[1] for r in runs) / values
        print(f"{name:<16} {log * 1e6:>15.2f} {log / base:>15.2f}× {total * 1e6:>19.2f}")
    missing = [n for n in ("wandb", "aim") if importlib.util.find_spec(n) is None]
    if missing:
        print(f"not installed here: {', '.join(missing)}")
    studio_log = statistics.median(r[0] for r in results["studio.track"]) / values
    assert studio_log <= base * 1.5, "studio.track should be no slower than SummaryWriter per logged value"


@pytest.mark.benchmark
def test_training_step_with_and_without_logging_every_step(tmp_path: Path) -> None:
    import torch

    import studio.track

    torch.set_num_threads(1)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
    run = studio.track.init("loop", home=tmp_path)
    step_no = 0

    def block(log: bool, n: int = 100) -> float:
        nonlocal step_no
        t = time.perf_counter()
        for _ in range(n):
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if log:
                run.log({"train/loss": loss.detach(), "lr": 0.01}, step=step_no)
            step_no += 1
        return (time.perf_counter() - t) / n

    block(False)
    plain, logged = [], []
    for _ in range(10):
        plain.append(block(False))
        logged.append(block(True))
    run.finish()
    p, g = statistics.median(plain), statistics.median(logged)
    noise = statistics.stdev(plain) / p
    print(f"\nstep time, median of 10 interleaved blocks of 100 steps (784-256-10 MLP, batch 64, 1 thread); {_load()}")
    print(f"no logging: {p * 1e3:.3f} ms · run.log every step: {g * 1e3:.3f} ms · ratio {g / p:.3f} "
          f"(the blocks' own spread without logging: ±{noise:.1%})")


@pytest.mark.benchmark
def test_delay_from_log_to_the_curves(qtbot, tmp_path: Path) -> None:
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    session = new_session(RunStore())
    window = MainWindow(session, probe_backend=False)
    window.shell.confirm_close = lambda: True
    qtbot.addWidget(window)
    window.show()
    script = tmp_path / "live.py"
    script.write_text(textwrap.dedent("""
        import sys, time, studio.track
        run = studio.track.init("live")
        print(run.id, flush=True)
        sys.stdin.readline()
        for step in range(12):
            run.log({"train/loss": 1.0 / (step + 1)}, step=step)
            time.sleep(0.37)
        run.finish()
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    delays: list[float] = []
    try:
        run_id = proc.stdout.readline().strip()
        qtbot.waitUntil(lambda: run_id in window.run_list.run_ids(), timeout=10_000)
        session.set_selection([run_id])
        curves = window.curves_pane.curves
        qtbot.waitUntil(lambda: not curves.loading, timeout=10_000)

        def arrived(rid: str, rows: list) -> None:
            now = time.time()
            if rid == run_id:
                delays.extend(now - row[3] for row in rows)

        session.metrics.connect(arrived)
        proc.stdin.write("\n")
        proc.stdin.flush()
        qtbot.waitUntil(lambda: len(delays) >= 12, timeout=30_000)
        qtbot.waitUntil(lambda: len(curves.series.get(run_id, {}).get("train/loss", [])) == 12, timeout=10_000)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stdin.close()
        session.shutdown(wait_s=10)
    print(f"\nrun.log → the window's curves: median {statistics.median(delays):.2f} s, max {max(delays):.2f} s over "
          f"{len(delays)} points (writer flush every 0.5 s, store follower every 1 s); {_load()}")


@pytest.mark.benchmark
def test_importing_a_folder_of_tensorboard_runs(tmp_path: Path) -> None:
    from tbparse import SummaryReader
    from torch.utils.tensorboard import SummaryWriter

    from studio.core.runs.tensorboard_import import import_logs

    logdir = tmp_path / "logs"
    t = time.perf_counter()
    for i in range(TB_RUNS):
        writer = SummaryWriter(str(logdir / f"run_{i:04d}"), flush_secs=3600)
        for step in range(50):
            writer.add_scalar("train/loss", 1.0 / (step + 1 + i), step)
            writer.add_scalar("val/acc", step / 50, step)
        writer.close()
    print(f"\n{TB_RUNS} TensorBoard runs × 50 steps × 2 scalars written in {time.perf_counter() - t:.1f} s; {_load()}")
    t = time.perf_counter()
    frame = SummaryReader(str(logdir), pivot=False).scalars
    read_s = time.perf_counter() - t
    store = RunStore(tmp_path / "home")
    t = time.perf_counter()
    report = import_logs(logdir, store)
    import_s = time.perf_counter() - t
    t = time.perf_counter()
    again = import_logs(logdir, store)
    again_s = time.perf_counter() - t
    assert len(report.imported) == TB_RUNS and len(again.unchanged) == TB_RUNS and len(frame) == TB_RUNS * 100
    print(f"tbparse reading the folder (baseline): {read_s:.1f} s · studio import: {import_s:.1f} s "
          f"({TB_RUNS / import_s:.0f} runs/s, ×{import_s / read_s:.1f} the read alone) · re-import (no change): "
          f"{again_s:.1f} s")
