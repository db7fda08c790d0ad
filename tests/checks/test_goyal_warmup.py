"""Goyal et al. 2017: linear scaling + warm-up keeps a 32× batch as accurate; without warm-up it loses early."""

from __future__ import annotations

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check


def test_the_check_is_the_large_batch_labs() -> None:
    assert "goyal_warmup" in [c.name for c in checks_for_demo("large_batch")]


@pytest.mark.slow
def test_passes_on_its_default_set_up() -> None:
    outcome = run_check("goyal_warmup")
    assert outcome.passed, outcome.to_dict()
    runs = outcome.details["runs"]
    assert runs["large, no warm-up"]["acc_early"] < runs["large, warm-up"]["acc_early"]
    assert runs["large, warm-up"]["lr"] == pytest.approx(32 * runs["small"]["lr"])  # linear scaling


def test_fails_when_the_control_run_warms_up_too() -> None:
    outcome = run_check("goyal_warmup", control_warmup_epochs=2.0, epochs=1.0)
    assert not outcome.error
    assert not outcome.passed
    no_warmup = outcome.measures[1]
    assert not no_warmup.passed and no_warmup.ours == pytest.approx(0.0)  # the two large-batch runs are one run
