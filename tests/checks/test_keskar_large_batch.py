"""Keskar et al. 2017's check: trained to convergence, the large batch (10 % of the set) is ≥ 10× sharper in
their ε-box metric and tests worse; with the two batches equal the check fails.

Recorded (2-core CPU, shared, seed 0): sharpness 3.48 (batch 32) vs 83.3 (batch 400), ratio 23.9; test accuracy
85.0 % vs 83.95 %; 35 s wall, 14 s CPU.
"""

import pytest

from studio.core.checks.catalog import get_check, run_check
from studio.core.checks.paper import keskar_large_batch
from studio.core.demos.catalog import DEMOS


def test_the_checks_set_up_is_the_labs_default_run():
    """The Teaching lab's default run holds the check's two batch sizes with every other setting the check's."""
    check = get_check("keskar_large_batch")
    assert check.demos == ("large_batch",)
    defaults = DEMOS.get("large_batch").defaults()
    assert set(check.preset) <= set(defaults)
    assert {k: v for k, v in check.preset.items() if k != "batch_sizes"} == \
        {k: defaults[k] for k in check.preset if k != "batch_sizes"}
    lab_sizes = [int(b) for b in defaults["batch_sizes"].split(",")]
    assert lab_sizes[0] == keskar_large_batch.SMALL and lab_sizes[-1] == keskar_large_batch.LARGE
    assert keskar_large_batch.LARGE == defaults["train_samples"] // 10  # Keskar's large batch: 10 % of the set


@pytest.mark.slow
def test_passes_on_its_default_set_up():
    outcome = run_check("keskar_large_batch")
    assert outcome.passed, (outcome.error, [m.to_dict() for m in outcome.measures])
    ratio, acc, gap, fitted = outcome.measures
    assert ratio.ours >= 10 and acc.ours < 0 < gap.ours and fitted.ours == 2
    small, large = outcome.details["runs"]["small"], outcome.details["runs"]["large"]
    assert (small["batch_size"], large["batch_size"]) == (32, 400)
    assert small["train_acc"] == large["train_acc"] == 1.0
    assert outcome.details["top_eigenvalue_ratio"] > 1  # the other sharpness agrees in direction


def test_fails_when_both_batches_are_the_same():
    """No large batch: identical runs, ratio 1, no accuracy difference (a small, quick set-up)."""
    outcome = run_check("keskar_large_batch", small_batch=100, large_batch=100, train_samples=600, epochs=3)
    assert not outcome.error and not outcome.passed
    ratio, acc, gap, _ = outcome.measures
    assert ratio.ours == pytest.approx(1.0) and not ratio.passed
    assert acc.ours == 0 and not acc.passed and not gap.passed
