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


def async_study_reports(start_s: float = 45.0, phase_s: float = 20.0, between_s: float = 60.0,
                        hogwild_s: float = 20.0, tail_s: float = 10.0) -> tuple[list[tuple[float, float]], float]:
    """(time, fraction) as the Async SGD page's job reports them on a busy machine (engine/async_sgd/launch.py):
    "no news" every 0.1 s while the parameter server and workers start (fraction 0), three rpc modes of
    ``phase_s`` (the server's fraction every 0.5 s) making 3/4 of the work, a minute of evaluation and the
    Hogwild processes starting (fraction 3/4), Hogwild, then its evaluation. Returns the reports and the end."""
    reports, t = [(0.0, 0.0)], 0.0

    def run(seconds: float, fraction) -> None:
        nonlocal t
        for k in range(1, round(seconds / 0.1) + 1):
            t += 0.1
            reports.append((t, fraction(int(k * 0.1 / 0.5) * 0.5 / seconds)))  # a new fraction every 0.5 s

    run(start_s, lambda _p: 0.0)
    for mode in range(3):
        run(phase_s, lambda p, mode=mode: 0.25 * (mode + p))
    run(between_s, lambda _p: 0.75)
    run(hogwild_s, lambda p: 0.75 + 0.25 * p)
    run(tail_s, lambda _p: 1.0)
    return reports, t


def test_the_async_pages_eta_after_a_long_start_is_not_minutes_for_seconds():
    """Issue 33: "about 46 min left" one minute before the end. A stall the job reported (the same fraction for a
    minute: processes starting) was measured as part of the rate, so the first percent after it read as 40 min
    (and the first phase's first seconds as an hour). Now the rate counts from the end of a long stall, and during
    one the estimate is unknown rather than a rate falling to zero."""
    reports, end = async_study_reports()
    est = EtaEstimator()
    worst = 0.0
    for t, fraction in reports:
        eta = est.update(fraction, t)
        if eta is not None and end - t > 1:
            worst = max(worst, eta / (end - t))
        if 45 + 60 + 35 <= t < 45 + 60 + 60:  # over half a window into the one-minute stall before Hogwild
            assert eta is None, f"{eta:.0f} s left at {t:.0f} s, in a stall"
        if abs(end - t - 60) < 0.05 or abs(end - t - 28) < 0.05:
            assert eta is None or eta < 120, f"{eta:.0f} s left {end - t:.0f} s before the end"
    assert worst < 2.0, f"an estimate {worst:.1f}× the time really left"
