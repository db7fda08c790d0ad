"""The noise-scale paper check: B_simple grows as the loss falls and has the size this set-up gives (means over
seeds); not without training."""

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check
from studio.core.checks.paper.mccandlish_noise_scale import BAND, rank_correlation


@pytest.mark.slow
@pytest.mark.pooled_check("mccandlish_noise_scale", seed=10)
def test_held_out_seeds_pass_too(pooled_check):
    """Seeds 10–14: the band was set from seeds 0–9."""
    outcome = pooled_check("mccandlish_noise_scale", seed=10)
    assert outcome.passed, [m.to_dict() for m in outcome.measures]
    growth, rho, size = outcome.measures
    assert growth.n == rho.n == size.n == 5
    assert BAND[0] <= size.ours <= BAND[1] and "≈ 900" in size.paper and "seeds 0–9" in size.band


def test_without_training_it_does_not_grow_and_fails():
    # lr 1e-6: the loss stays at ln 10, so nothing makes the noise scale grow
    outcome = run_check("mccandlish_noise_scale", lr=1e-6, epochs=1.0, seeds=2)
    assert not outcome.passed and not outcome.error
    growth, rho, _ = outcome.measures
    assert not growth.passed and growth.ours is not None and growth.ours < 1.5
    assert not rho.passed


def test_rank_correlation():
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_the_demo_panel_runs_it_with_the_demo_defaults():
    from studio.core.demos.catalog import DEMOS

    check = next(c for c in checks_for_demo("noise_scale") if c.name == "mccandlish_noise_scale")
    defaults = DEMOS.get("noise_scale").defaults()
    assert {k: defaults[k] for k in check.preset} == check.preset
