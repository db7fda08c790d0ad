"""The timing checks' replay of a measured timeline on dedicated cores (engine/parallel/replay.py), on synthetic
timelines whose answer is known: GPipe's bubble (p−1)/(M+p−1) comes back from a timeline stretched by another
program, and a step's span loses exactly the time its computations were descheduled."""

from __future__ import annotations

import math
from typing import Any

import pytest

from studio.engine.parallel.replay import dedicated_spans, overlap, replay_step, replayed_bubbles, work_split


def _lane(rank: int, ops: list[tuple[str, int | None, float]], step: int = 1, t0: float = 0.0) -> list[dict]:
    """Back-to-back intervals of one rank (only their order and lengths matter to the replay)."""
    out, t = [], t0
    for kind, mb, length in ops:
        out.append({"rank": rank, "kind": kind, "start": t, "end": t + length, "step": step, "microbatch": mb})
        t += length + 0.01
    return out


def _gpipe_row(m: int, stretch: tuple[float, float], share: tuple[float, float]) -> dict[str, Any]:
    """Two stages, forward 1 s and backward 2 s of CPU per micro-batch, every interval's wall time × stretch."""
    lanes = []
    for rank in (0, 1):
        s = stretch[rank]
        ops = [("forward", i, 1.0 * s) for i in range(m)] + [("backward", i, 2.0 * s) for i in range(m)]
        lanes += _lane(rank, ops)
    return {"timeline": lanes, "cpu_share": list(share)}


@pytest.mark.parametrize("m", [1, 2, 4, 8])
def test_gpipe_replay_gives_the_theorys_bubble(m: int) -> None:
    (bubble,) = replayed_bubbles(_gpipe_row(m, (1.0, 1.0), (1.0, 1.0)))  # type: ignore[arg-type]
    assert bubble == pytest.approx(1 / (m + 1))


def test_a_rank_slowed_by_another_program_is_replayed_at_its_cpu_time() -> None:
    # the second stage got half a core: its intervals took twice as long on the wall clock
    (bubble,) = replayed_bubbles(_gpipe_row(4, (1.0, 2.0), (1.0, 0.5)))  # type: ignore[arg-type]
    assert bubble == pytest.approx(0.2)
    # without the CPU shares the slow stage paces the pipeline: the bubble the wall clock would show
    (slow,) = replayed_bubbles(_gpipe_row(4, (1.0, 2.0), (1.0, 1.0)))  # type: ignore[arg-type]
    assert slow > 0.3


def test_an_order_that_cannot_run_is_not_a_number() -> None:
    # the first stage's backward of micro-batch 0 before its forward reached the second stage: a deadlock
    ivs = _lane(0, [("backward", 0, 1.0), ("forward", 0, 1.0)]) + _lane(1, [("forward", 0, 1.0), ("backward", 0, 1.0)])
    makespan, busy = replay_step(ivs, {0: 1.0, 1: 1.0})  # type: ignore[arg-type]
    assert math.isnan(makespan) and busy == {}


def test_naive_model_parallelism_replays_one_stage_at_a_time() -> None:
    ivs = _lane(0, [("forward", None, 1.0)]) + _lane(1, [("forward", None, 1.0), ("backward", None, 2.0)], t0=1.1)
    ivs += _lane(0, [("backward", None, 2.0), ("optimizer", None, 0.5)], t0=4.2)
    makespan, busy = replay_step(ivs, {0: 1.0, 1: 1.0})  # type: ignore[arg-type]
    assert makespan == pytest.approx(6.5) and busy == {0: 3.5, 1: 3.0}


def test_dedicated_spans_take_off_the_descheduled_time() -> None:
    # one process, two steps of 1 s of CPU each; it got 0.8 of a core, so each took 1.25 s of wall time
    row = {"timeline": _lane(0, [("forward", None, 0.5), ("backward", None, 0.75)], step=1)
           + _lane(0, [("forward", None, 0.5), ("backward", None, 0.75)], step=2, t0=2.0), "cpu_share": [0.8]}
    spans = dedicated_spans(row)  # type: ignore[arg-type]
    assert spans == pytest.approx([1.01, 1.01])  # 1.26 s of span (with the 0.01 s gap) less 0.25 s descheduled


def test_the_work_split_counts_cpu_time_and_the_overlap_counts_ranks_computing_at_once() -> None:
    # naive model parallelism: stage 1 got half a core, so its 1 s of work took 2 s; one stage at a time
    sequential = _lane(0, [("forward", None, 1.0)]) + _lane(1, [("forward", None, 2.0)], t0=1.05)
    row = {"timeline": sequential, "cpu_share": [1.0, 0.5]}
    assert work_split(row)[0] == pytest.approx([0.5, 0.5])  # type: ignore[arg-type]
    assert overlap(row) == pytest.approx([1.0])  # type: ignore[arg-type]
    # data parallelism: both compute the whole time
    both = _lane(0, [("forward", None, 1.0)]) + _lane(1, [("forward", None, 1.0)])
    assert overlap({"timeline": both, "cpu_share": [1.0, 1.0]}) == pytest.approx([2.0])  # type: ignore[arg-type]


def test_each_computations_measured_cpu_time_comes_before_the_ranks_average_share() -> None:
    # over the run the rank got 0.8 of a core, but the other program took it during step 1 only: step 1's
    # computations got half their wall time, step 2's all of it. The average share would mis-correct both steps.
    step1 = _lane(0, [("forward", None, 1.0), ("backward", None, 1.0)], step=1)
    step2 = _lane(0, [("forward", None, 0.5), ("backward", None, 0.5)], step=2, t0=3.0)
    for interval in step1:
        interval["cpu"] = 0.5
    for interval in step2:
        interval["cpu"] = 0.5
    row = {"timeline": step1 + step2, "cpu_share": [0.8]}
    assert dedicated_spans(row) == pytest.approx([1.01, 1.01])  # type: ignore[arg-type]
    without = {"timeline": [{k: v for k, v in i.items() if k != "cpu"} for i in step1 + step2], "cpu_share": [0.8]}
    assert dedicated_spans(without) == pytest.approx([1.61, 0.81])  # type: ignore[arg-type]


def test_a_rank_records_the_cpu_time_of_its_computations_only() -> None:
    from studio.engine.parallel.timeline import Recorder

    rec = Recorder(rank=1)
    rec.on = True
    with rec.span("forward"):
        sum(i * i for i in range(200_000))  # busy: its CPU time is most of its wall time
    with rec.span("recv"):
        pass
    forward, recv = rec.intervals(origin=0.0)
    assert 0 < forward["cpu"] <= forward["end"] - forward["start"] and "cpu" not in recv
    assert rec.cpu_share == pytest.approx(forward["cpu"] / (forward["end"] - forward["start"]), rel=1e-3)
