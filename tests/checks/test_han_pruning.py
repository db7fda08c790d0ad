"""Han et al. 2015: magnitude pruning to 92 % plus a fine-tune keeps LeNet-300-100's accuracy against a dense net
trained as many steps more (mean over seeds, one-sided 95 % margin)."""

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
@pytest.mark.pooled_check("han_pruning", seed=5)
def test_held_out_seeds_pass_too(pooled_check):
    """The default seeds 0–4 run in test_all_checks; seeds 5–9 were not used to set the bands."""
    outcome = pooled_check("han_pruning", seed=5)
    assert outcome.passed, outcome.to_dict()
    details = outcome.details
    assert details["seeds"] == [5, 6, 7, 8, 9] and details["control_steps"] == 1500  # the fair control: 3 × 500
    for r in details["per_seed"]:
        assert r["sparsity"] >= 0.9
        assert r["pruned_acc"] < r["pruned_fine_tuned_acc"] - 0.01  # pruning alone loses more


def test_fails_without_the_fine_tune():
    outcome = run_check("han_pruning", epochs=2, fine_tune_steps=0, train_samples=3000, seeds=2)
    assert not outcome.passed
    failed = {m.label for m in outcome.measures if not m.passed}
    assert any("retraining's gain" in label for label in failed)


def test_keeps_the_callers_thread_count():
    import torch

    before = torch.get_num_threads()
    run_check("han_pruning", epochs=1, fine_tune_steps=0, train_samples=500, seeds=1)
    assert torch.get_num_threads() == before


def test_fails_when_pruned_past_what_a_fine_tune_recovers():
    outcome = run_check("han_pruning", epochs=2, sparsity=0.995, fine_tune_steps=100, seeds=2)
    assert not outcome.passed
    assert outcome.details["per_seed"][0]["sparsity"] == pytest.approx(0.995, abs=1e-3)
    assert outcome.measures[1].ours < -5.0 and not outcome.measures[1].passed  # far below the dense net
