"""The Tiresias paper check (Gu et al. 2019): PASS on its set-up, FAIL where LAS has nothing to find."""

from __future__ import annotations

from studio.core.checks.catalog import run_check


def test_passes_on_its_default_set_up_and_on_held_out_traces():
    outcome = run_check("gu_tiresias_las")
    assert outcome.passed, (outcome.error, outcome.measures)
    fifo_over_las = outcome.measures[0].ours
    assert fifo_over_las is not None and 2.0 <= fifo_over_las < 10
    held_out = run_check("gu_tiresias_las", seed=5)  # five other traces (seeds 5-9; the set-up draws 0-4)
    assert held_out.passed, (held_out.error, held_out.measures)


def test_fails_without_a_tail_of_long_jobs_or_without_a_queue():
    no_tail = run_check("gu_tiresias_las", short_share=0.0, traces=2)  # every job long: nothing to favour
    assert not no_tail.passed and not no_tail.measures[0].passed
    idle = run_check("gu_tiresias_las", load=0.2, traces=2)  # no queue: every policy starts every job at once
    assert not idle.passed and idle.measures[0].ours is not None and idle.measures[0].ours < 1.1
