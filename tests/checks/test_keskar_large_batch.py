"""Keskar et al. 2017's check: trained to convergence, the large batch (10 % of the set) is ≥ 10× sharper in
their ε-box metric and tests worse (means over seeds, one-sided 95 % margins); with the two batches equal the check
fails. The train − test gap is not a measure: both runs fit the training set, so it is the accuracy difference."""

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
@pytest.mark.pooled_check("keskar_large_batch", seed=6)
def test_held_out_seeds_pass_too(pooled_check):
    """Seeds 6–11 (the default 0–5 run in test_all_checks)."""
    outcome = pooled_check("keskar_large_batch", seed=6)
    assert outcome.passed, (outcome.error, [m.to_dict() for m in outcome.measures])
    ratio, acc, fitted = outcome.measures
    assert ratio.n == acc.n == 6 and fitted.ours == 12
    assert all(r > 1 for r in outcome.details["top_eigenvalue_ratio"])  # the other sharpness agrees in direction
    for r in outcome.details["per_seed"]:
        assert (r["small"]["batch_size"], r["large"]["batch_size"]) == (32, 400)
        assert r["small"]["train_acc"] == r["large"]["train_acc"] == 1.0


def test_fails_when_both_batches_are_the_same():
    """No large batch: identical runs, ratio 1, no accuracy difference (a small, quick set-up)."""
    outcome = run_check("keskar_large_batch", small_batch=100, large_batch=100, train_samples=600, epochs=3,
                        seeds=2)
    assert not outcome.error and not outcome.passed
    ratio, acc, _ = outcome.measures
    assert ratio.ours == pytest.approx(0.0) and not ratio.passed  # log10 of a ratio of 1
    assert acc.ours == 0 and not acc.passed
