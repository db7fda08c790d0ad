"""How busy the machine is, read when a job starts (core/host/threads.py): from the background sampler's last
second without waiting, else from a 0.2 s sample."""

from __future__ import annotations

import time

import pytest

from studio.core.host import threads


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(threads, "_readings", [])
    monkeypatch.setattr(threads, "_last_sample", [-1e9, 0.0])
    monkeypatch.setattr(threads, "cpu_count", lambda: 4)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 4)


def test_the_sampler_s_last_second_is_read_without_a_wait(fresh, monkeypatch):
    now = time.monotonic()
    threads._readings[:] = [(now - 1.0, 1000.0, 4000.0), (now, 1150.0, 4400.0)]  # 150 of 400 jiffies busy
    slept: list[float] = []
    monkeypatch.setattr(threads.time, "sleep", slept.append)
    assert threads.busy_cores() == pytest.approx(4 * 150 / 400)
    assert slept == []


def test_a_stale_or_missing_sampler_falls_back_to_a_sample(fresh, monkeypatch):
    readings = iter([(100.0, 400.0), (300.0, 800.0)])  # 200 of 400 jiffies busy over the sample
    monkeypatch.setattr(threads, "_cpu_times", lambda: next(readings))
    slept: list[float] = []
    monkeypatch.setattr(threads.time, "sleep", slept.append)
    old = time.monotonic() - 10 * threads.SAMPLE_TTL_S
    threads._readings[:] = [(old - 1.0, 0.0, 10.0), (old, 10.0, 20.0)]  # the sampler stopped long ago
    assert threads.busy_cores() == pytest.approx(2.0)
    assert slept == [0.2]


def test_the_sampler_keeps_reading(monkeypatch):
    monkeypatch.setattr(threads, "_readings", [])
    monkeypatch.setattr(threads, "_sampler", [])
    monkeypatch.setattr(threads, "SAMPLER_EVERY_S", 0.01)
    if threads._cpu_times() is None:
        pytest.skip("no /proc/stat here")
    threads.start_sampler()
    deadline = time.monotonic() + 10
    while len(threads._readings) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threads._sampled_busy() is not None
    assert len(threads._sampler) == 1
    threads.start_sampler()  # once per process
    assert len(threads._sampler) == 1
