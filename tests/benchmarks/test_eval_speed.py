"""Evaluation time and export sizes of the default run (5 epochs, default config, CPU), beside its training time.

Run on demand: ``python -m pytest tests/benchmarks/test_eval_speed.py -m benchmark -s``. Everything is measured
in one run; on a shared CPU compare the ratios, not the seconds.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.benchmark


def test_eval_time_and_export_sizes_of_the_default_run(tmp_path: Path):
    from studio.engine.tasks.evaluation import evaluate_run
    from studio.engine.tasks.export import export_model

    proc = run_cli("train", "--json", "--quiet", timeout=900)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout.strip().splitlines()[-1])
    run_dir = Path(run["run_dir"])
    rows = [("training (5 epochs, the run's own figure)", run["seconds"], None)]
    for split in ("test", "val", "train"):
        started = time.perf_counter()
        result = evaluate_run(run_dir, split=split, device="cpu")
        rows.append((f"eval {split} ({result.summary['examples']:,} examples, in-process)",
                     time.perf_counter() - started, result.summary["accuracy"]))
    started = time.perf_counter()
    cli = run_cli("eval", run["run_id"], "--json", "--quiet")
    assert cli.returncode == 0, cli.stderr
    rows.append(("studio eval (test, a new process: start-up + torch import included)", time.perf_counter() - started,
                 json.loads(cli.stdout.strip().splitlines()[-1])["accuracy"]))
    print()
    for name, seconds, acc in rows:
        extra = f"  accuracy {acc:.4f}" if acc is not None else ""
        print(f"{name:<70} {seconds:7.2f} s  ({seconds / run['seconds']:.3f}× training){extra}")
    sizes = {"final.pt checkpoint (weights + optimizer state)": (run_dir / "checkpoints" / "final.pt").stat().st_size}
    for fmt in ("export", "torchscript"):
        out = export_model(run_dir, tmp_path / f"model-{fmt}", fmt)
        sizes[f"model, {fmt}"] = out["bytes"]
    for name, size in sizes.items():
        print(f"{name:<70} {size / 1e6:7.2f} MB")
    assert rows[1][2] == pytest.approx(run["test_acc"])  # the same number the trainer reported
