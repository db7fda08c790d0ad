"""The one ETA (core/jobs.EtaEstimator, used by every job, the training job and the CLI's progress printer): from
the rate of a recent window, so a rate that changes (a load that comes or goes, a slow warm-up) is followed."""

from __future__ import annotations

import pytest

from studio.core.contracts.progress import EtaEstimator, Progress


def feed(est: EtaEstimator, rates: list[tuple[float, float]], start: float = 0.0, step_s: float = 0.5) -> float:
    """Report progress every ``step_s`` through phases of (seconds, fraction per second); the time at the end."""
    t, f = start, 0.0 if not est._samples else est._samples[-1][1]
    for seconds, rate in rates:
        for _ in range(round(seconds / step_s)):
            t += step_s
            f = min(1.0, f + rate * step_s)
            est.update(f, t)
    return t


def test_no_estimate_before_a_rate_then_the_constant_rate():
    est = EtaEstimator()
    assert est.update(0.1, 100.0) is None  # the first report: start-up before it is not work
    assert est.update(0.2, 110.0) == pytest.approx(80.0)
    feed(est, [(20.0, 0.01)], start=110.0)  # 1 % a second
    assert est.eta_s == pytest.approx(60.0)


def test_a_machine_that_gets_busy_raises_the_estimate_to_the_new_rate():
    """20 s at 1 %/s, then a load: 0.25 %/s. Averaged from the start (the old estimate) it said ~2 min;
    the remaining work takes ~5 min at the new rate, and that is what the window measures."""
    est = EtaEstimator()
    est.update(0.0, 0.0)
    t = feed(est, [(20.0, 0.01), (30.0, 0.0025)])
    done = 0.2 + 30 * 0.0025
    truth = (1 - done) / 0.0025
    from_the_start = t * (1 - done) / done
    assert est.eta_s == pytest.approx(truth, rel=0.05)
    assert abs(from_the_start - truth) / truth > 0.5  # the old estimate was off by more than half


def test_a_slow_warm_up_is_forgotten():
    """10 s at 0.2 %/s (a warm-up), then 2 %/s: the estimate follows the fast rate once the window has moved on."""
    est = EtaEstimator()
    est.update(0.0, 0.0)
    feed(est, [(10.0, 0.002), (15.0, 0.02)])
    done = 10 * 0.002 + 15 * 0.02
    assert est.eta_s == pytest.approx((1 - done) / 0.02, rel=0.05)


def test_a_stall_shorter_than_the_window_lengthens_the_estimate_and_reset_forgets():
    est = EtaEstimator()
    est.update(0.0, 0.0)
    t = feed(est, [(10.0, 0.01)])
    before = est.eta_s
    t = feed(est, [(4.0, 0.0)], start=t)  # an evaluation: no progress for 4 s
    assert est.eta_s > before
    est.reset()  # paused: the time paused is not working time
    assert est.eta_s is None and est.update(0.2, t + 100) is None


def test_progress_that_goes_back_starts_again_and_the_end_is_zero():
    est = EtaEstimator()
    est.update(0.0, 0.0)
    feed(est, [(10.0, 0.05)])
    assert est.update(0.1, 20.0) is None  # a new stage counts from 0 again
    assert est.update(1.0, 21.0) == 0.0


def test_progress_reports_the_windowed_eta(monkeypatch):
    from types import SimpleNamespace

    import studio.core.contracts.progress as jobs

    now = [0.0]
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=lambda: now[0]))
    reports = []
    p = Progress(reports.append, interval=0.0)
    for i in range(1, 61):  # 1 %/s for 20 s, then 0.25 %/s
        now[0] = float(i)
        p(0.01 * i if i <= 20 else 0.2 + 0.0025 * (i - 20), "working")
    assert reports[-1].eta_s == pytest.approx((1 - 0.3) / 0.0025, rel=0.05)
