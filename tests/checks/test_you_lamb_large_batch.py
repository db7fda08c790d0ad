"""You et al. 2020's check: at batch 2048, LAMB with warm-up, poly decay and its best rate of a grid beats Adam
with the same recipe; without the trust ratio (Adam at LAMB's rates) it fails; held-out seeds pass.

Recorded (2-core CPU, shared, one torch thread, 4 seeds): LAMB − Adam = +1.49 ± 0.28 points; small-batch Adam −
LAMB 2.05 points, − Adam 3.54 points (LAMB closes about 40 % of the large-batch gap, not all of it); 85 s. Broken
(no trust ratio, 2 seeds, 5,000 images, 5 epochs): −33 points.
"""

import pytest

from studio.core.checks.catalog import run_check
from studio.core.checks.paper import you_lamb_large_batch as check


def test_without_the_trust_ratio_lamb_is_adam_at_lambs_rates_and_fails():
    outcome = run_check("you_lamb_large_batch", seeds=2, train_samples=5000, epochs=5, trust_ratio=False)
    assert not outcome.error and not outcome.passed
    assert outcome.measures[0].ours < 0 and not outcome.measures[0].passed


def test_the_large_batch_runs_warm_up_then_decay_by_the_catalogs_poly_schedule():
    from studio.core.optim.schedules import poly

    factor = poly(40, 4, 4)  # 10 epochs of 4 steps, 10 % warm-up
    assert [factor(t) for t in range(4)] == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert factor(39) == pytest.approx(1 / 36) and check.WARMUP == 0.1


@pytest.mark.slow
@pytest.mark.pooled_check("you_lamb_large_batch", first_seed=100)
def test_held_out_seeds_pass(pooled_check):
    outcome = pooled_check("you_lamb_large_batch", first_seed=100)
    assert outcome.passed, (outcome.error, [m.to_dict() for m in outcome.measures])
    assert outcome.details["seeds"] == [100, 101, 102, 103]
