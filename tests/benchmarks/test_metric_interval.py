"""What logging every step costs (issue 22 point 8: TensorBoard users expect every step; Studio's default is
``train.metric_interval = 20``): the same runs with ``metric_interval`` 1 and 20, interleaved, side by side.

Two cases: the default run shortened to one epoch (the MLP 512-512 on the bundled Fashion-MNIST subset, ~70
steps), and a tiny model whose steps take well under a millisecond (the worst case: the per-report cost is
then all there is). Figures: the training loop's seconds (the run summary's ``seconds``) and the metric rows.

Run: ``python -m pytest tests/benchmarks/test_metric_interval.py -m benchmark -s``
"""

from __future__ import annotations

import statistics

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.engine.training.launcher import launch

REPEATS = 3
CASES = {
    "default run, 1 epoch": ["train.epochs=1", "train.trajectory_snapshots=false", "train.histogram_every=0"],
    "tiny model (moons, 16 units)": ["data.name=moons", "data.n_samples=4000", "model.widths=16", "train.epochs=4",
                                     "train.batch_size=32", "train.trajectory_snapshots=false",
                                     "train.histogram_every=0"],
}


def timed_run(home, overrides: list[str]) -> tuple[float, int]:
    """(training-loop seconds, metric rows stored) of one run."""
    store = RunStore(home)
    job = launch(RunConfig().with_overrides(overrides), store)
    assert job.wait(timeout=600) == "finished", job.errors
    info = store.get(job.run_id)
    rows = len(store.metric_rows_after(job.run_id, 0))
    store.close()
    return float(info.summary["seconds"]), rows


@pytest.mark.benchmark
def test_logging_every_step_against_every_20(tmp_path):
    lines = []
    for case, overrides in CASES.items():
        seconds: dict[int, list[float]] = {1: [], 20: []}
        rows: dict[int, int] = {}
        for i in range(REPEATS):
            for every in (20, 1) if i % 2 else (1, 20):  # interleaved, alternating which goes first
                s, n = timed_run(tmp_path / f"{case[:4]}-{every}", [*overrides, f"train.metric_interval={every}"])
                seconds[every].append(s)
                rows[every] = n
        one, twenty = statistics.median(seconds[1]), statistics.median(seconds[20])
        lines.append(f"{case}: every step {one:.2f} s ({rows[1]} rows), every 20 steps {twenty:.2f} s "
                     f"({rows[20]} rows): ×{one / twenty:.2f}  [runs: 1 → {seconds[1]}, 20 → {seconds[20]}]")
        assert rows[1] > 10 * rows[20]
    print("\nmetric_interval, median of", REPEATS, "runs each, training-loop seconds:\n  " + "\n  ".join(lines))
