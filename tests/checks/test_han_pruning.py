"""Han et al. 2015: magnitude pruning to 92 % plus a fine-tune keeps LeNet-300-100's accuracy."""

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
def test_passes_on_its_default_set_up():
    outcome = run_check("han_pruning")
    assert outcome.passed, outcome.to_dict()
    details = outcome.details
    assert details["sparsity"] >= 0.9
    assert details["pruned_fine_tuned_acc"] >= details["dense_acc"] - 0.005
    assert details["pruned_acc"] < details["pruned_fine_tuned_acc"] - 0.01  # pruning alone loses more


def test_fails_without_the_fine_tune():
    outcome = run_check("han_pruning", epochs=2, fine_tune_steps=0, train_samples=3000)
    assert not outcome.passed
    failed = {m.label for m in outcome.measures if not m.passed}
    assert any("fine-tune's gain" in label for label in failed)


def test_keeps_the_callers_thread_count():
    import torch

    before = torch.get_num_threads()
    run_check("han_pruning", epochs=1, fine_tune_steps=0, train_samples=500)
    assert torch.get_num_threads() == before


def test_fails_when_pruned_past_what_a_fine_tune_recovers():
    outcome = run_check("han_pruning", epochs=2, sparsity=0.995, fine_tune_steps=100)
    assert not outcome.passed
    assert outcome.details["sparsity"] == pytest.approx(0.995, abs=1e-3)
    assert outcome.measures[1].ours < -5.0  # far outside the band of 0.5 pt below dense
