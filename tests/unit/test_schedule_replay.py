"""The scheduling simulator (core/scheduling): hand-checked schedules and properties on random job sets."""

from __future__ import annotations

import random

import pytest

from studio.core.errors import ConfigError
from studio.core.scheduling.jobs import Job, check_jobs, repeated
from studio.core.scheduling.policies import NAMES, make_policy, parse_policies
from studio.core.scheduling.replay import replay
from studio.core.scheduling.stats import summarise
from studio.core.scheduling.traces import heavy_tailed

CASES = 60  # random job sets per property (seeded: the same sets every run)


def _random_specs(rng: random.Random, most: int = 25, widest: int = 4) -> list[tuple[float, float, int]]:
    return [(float(rng.randint(0, 50)), rng.uniform(0.5, 40), rng.randint(1, widest))
            for _ in range(rng.randint(1, most))]


def _jobs(specs: list[tuple[float, float, int]]) -> list[Job]:
    return [Job(f"j{i}", a, d, g) for i, (a, d, g) in enumerate(specs)]


@pytest.mark.parametrize("name", NAMES)
def test_every_job_gets_exactly_its_service_and_the_cluster_is_never_oversubscribed(name):
    rng = random.Random(1)
    for _ in range(CASES):
        _check_conservation(_jobs(_random_specs(rng)), rng.randint(4, 8), name)


def _check_conservation(jobs: list[Job], gpus: int, name: str) -> None:
    schedule = replay(jobs, gpus, make_policy(name, quantum=3.0))
    events = []
    for p in schedule.placed:
        assert p.start >= p.job.arrival - 1e-9
        assert sum((i.end - i.start) * len(i.gpus) for i in p.intervals) == pytest.approx(p.job.service, rel=1e-6)
        assert all(len(i.gpus) == p.job.gpus and i.end > i.start for i in p.intervals)
        for i in p.intervals:
            events += [(i.start, 1, i.gpus), (i.end, 0, i.gpus)]
    busy: set[int] = set()
    for _t, starting, lanes in sorted(events, key=lambda e: (e[0], e[1])):  # ends before starts at one instant
        if starting:
            assert not busy & set(lanes) and all(0 <= g < gpus for g in lanes)
            busy |= set(lanes)
        else:
            busy -= set(lanes)
        assert len(busy) <= gpus


def test_fifo_starts_jobs_in_arrival_order_and_never_preempts():
    rng = random.Random(2)
    for _ in range(CASES):
        schedule = replay(_jobs(_random_specs(rng)), rng.randint(4, 8), make_policy("fifo"))
        order = sorted(schedule.placed, key=lambda p: (p.job.arrival, int(p.job.id[1:])))
        starts = [p.start for p in order]
        assert starts == sorted(starts)
        assert all(p.preemptions == 0 for p in schedule.placed)


def test_sjf_mean_jct_is_at_most_fifos_when_all_arrive_together():
    """Shortest processing time first minimises the mean completion time on identical machines (one GPU per job,
    all released at 0), so it can never lose to FIFO; on random sets it usually wins outright."""
    rng = random.Random(3)
    wins = 0
    for _ in range(CASES * 2):
        jobs = [Job(f"j{i}", 0.0, rng.uniform(0.5, 100)) for i in range(rng.randint(1, 30))]
        gpus = rng.randint(1, 6)
        sjf = summarise(replay(jobs, gpus, make_policy("sjf")))["mean_jct"]
        fifo = summarise(replay(jobs, gpus, make_policy("fifo")))["mean_jct"]
        assert sjf <= fifo + 1e-9
        wins += sjf < fifo - 1e-9
    assert wins > CASES


def test_las_shares_one_gpu_round_robin_like_processor_sharing():
    """Two jobs of 2 s and 3 s at time 0 on one GPU. Processor sharing would finish them at 4 s and 5 s; LAS with
    a quantum q alternates them every q: the short one finishes at 4 − q, the long one at 5; FIFO: 2 s and 5 s."""
    jobs = [Job("a", 0.0, 2.0), Job("b", 0.0, 3.0)]
    for q, first in ((0.5, 3.5), (0.25, 3.75), (0.01, 3.99)):
        a, b = replay(jobs, 1, make_policy("las", quantum=q)).placed
        assert a.finish == pytest.approx(first) and b.finish == pytest.approx(5.0)
    a, b = replay(jobs, 1, make_policy("las", quantum=0.5)).placed
    assert [(i.start, i.end) for i in a.intervals] == [(0.0, 0.5), (1.0, 1.5), (2.0, 2.5), (3.0, 3.5)]
    fifo = replay(jobs, 1, make_policy("fifo")).placed
    assert [p.finish for p in fifo] == [2.0, 5.0]


def test_las_lets_a_late_short_job_overtake_a_long_one_without_knowing_durations():
    jobs = [Job("long", 0.0, 100.0), Job("short", 10.0, 5.0)]
    long, short = replay(jobs, 1, make_policy("las", quantum=1.0)).placed
    assert short.finish == pytest.approx(15.0)  # preempted the long job at once: it had 10 GPU-s, the short 0
    assert long.finish == pytest.approx(105.0) and long.preemptions == 1
    fifo_short = replay(jobs, 1, make_policy("fifo")).placed[1]
    assert fifo_short.finish == pytest.approx(105.0)


def test_discretized_las_is_fifo_inside_a_queue_and_demotes_at_its_threshold():
    """Tiresias' discretized LAS with one threshold of 4 GPU-s: a job keeps the GPU until it has had 4 GPU-s
    (first come, first served in the top queue), then a waiting job of the top queue takes over."""
    jobs = [Job("a", 0.0, 10.0), Job("b", 0.0, 10.0)]
    a, b = replay(jobs, 1, make_policy("las", quantum=1.0, thresholds=(4.0,))).placed
    assert [(i.start, i.end) for i in a.intervals][0] == (0.0, 4.0)
    assert [(i.start, i.end) for i in b.intervals][0] == (4.0, 8.0)
    assert {a.finish, b.finish} == {14.0, 20.0}


def test_srtf_preempts_for_a_shorter_arrival_and_fifo_blocks_behind_a_wide_job():
    jobs = [Job("long", 0.0, 10.0), Job("short", 2.0, 1.0)]
    long, short = replay(jobs, 1, make_policy("srtf")).placed
    assert short.finish == 3.0 and long.finish == 11.0
    # 2 GPUs: a 2-GPU job waits for the running 1-GPU job; FIFO keeps the 1-GPU job behind it waiting too
    wide = [Job("a", 0.0, 10.0), Job("w", 1.0, 5.0, gpus=2), Job("c", 2.0, 1.0)]
    fifo = replay(wide, 2, make_policy("fifo")).placed
    assert fifo[1].start == 10.0 and fifo[2].start == 15.0  # c waits behind w though GPU 1 is free
    sjf = replay(wide, 2, make_policy("sjf")).placed
    assert sjf[2].start == 2.0  # SJF skips what does not fit


def test_stats_of_a_hand_schedule():
    stats = summarise(replay([Job("a", 0.0, 2.0), Job("b", 0.0, 2.0, gpus=2)], 2, make_policy("fifo")))
    # a on GPU 0 from 0 to 2; b needs both: 2 to 4
    assert stats["mean_jct"] == 3.0 and stats["makespan"] == 4.0
    assert stats["utilisation"] == pytest.approx((2 + 4) / (2 * 4))


def test_bad_input_is_one_sentence():
    with pytest.raises(ConfigError, match="at least 1 GPU"):
        check_jobs([Job("a", 0, 1)], 0)
    with pytest.raises(ConfigError, match="needs 4 GPUs but the cluster has only 2"):
        check_jobs([Job("a", 0, 1, gpus=4)], 2)
    with pytest.raises(ConfigError, match="no scheduling policy named 'lifo'"):
        parse_policies("fifo,lifo")
    with pytest.raises(ConfigError, match="quantum"):
        make_policy("las", quantum=0)
    with pytest.raises(ConfigError, match="--repeat"):
        repeated([Job("a", 0, 1)], 0)


def test_repeat_shifts_each_copy_after_the_last():
    jobs = repeated([Job("a", 0.0, 1.0), Job("b", 4.0, 1.0)], 3)
    assert [j.arrival for j in jobs] == [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]
    assert len({j.id for j in jobs}) == 6


def test_heavy_tailed_trace_is_seeded_and_mostly_short():
    a, b = heavy_tailed(n=200, seed=3), heavy_tailed(n=200, seed=3)
    assert a == b
    short = sorted(j.duration for j in a)[len(a) // 2]
    assert short < 3600 < max(j.duration for j in a)  # the median job takes minutes, the longest hours
