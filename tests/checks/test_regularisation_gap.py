"""The regularisation paper check: each regulariser lowers the test error of the overfitting net (mean over seeds,
one-sided 95 % margin); switched off, it gains nothing and the check FAILs."""

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check


@pytest.mark.slow
@pytest.mark.pooled_check("regularisation_gap", seed=5)
def test_held_out_seeds_pass_too(pooled_check):
    """The default seeds 0–4 run in test_all_checks; seeds 5–9 were not used to choose the set-up."""
    outcome = pooled_check("regularisation_gap", seed=5)
    assert outcome.passed, [m.to_dict() for m in outcome.measures]
    assert outcome.details["seeds"] == [5, 6, 7, 8, 9]
    for name in ("dropout", "weight_decay", "augmentation"):
        gain = outcome.details["gains_pt"][name]
        assert gain["n"] == 5 and gain["mean"] - gain["margin"] > 0, (name, gain)


def test_a_regulariser_switched_off_fails_it():
    # dropout 0 and λ = 0: those variants are the unregularised run (same weights, same batches) and gain exactly
    # nothing (0 ± 0 is not a gain); augmentation is left out (a missing variant fails too). Small, so it is cheap.
    outcome = run_check("regularisation_gap", variants="none,dropout,weight_decay", dropout=0.0, weight_decay=0.0,
                        train_samples=300, val_samples=300, epochs=12, widths="128", seeds=2)
    assert not outcome.passed and not outcome.error
    by_label = {m.label.split(":")[0]: m for m in outcome.measures}
    assert by_label["dropout"].ours == 0.0 and by_label["dropout"].n == 2 and not by_label["dropout"].passed
    assert by_label["weight decay"].ours == 0.0 and not by_label["weight decay"].passed
    assert by_label["augmentation"].n == 0 and not by_label["augmentation"].passed


def test_the_demo_panel_runs_the_demo_with_noisy_labels_and_every_test_image():
    from studio.core.demos.catalog import DEMOS

    check = next(c for c in checks_for_demo("regularisation") if c.name == "regularisation_gap")
    defaults = DEMOS.get("regularisation").defaults()
    changed = {k for k in check.preset if check.preset[k] != defaults[k]}
    assert changed == {"label_noise", "val_samples"}  # the rest is what the lab shows by default
    assert check.preset["label_noise"] == 0.2 and check.preset["val_samples"] == 2000


def test_label_noise_changes_that_share_of_labels_to_another_class():
    import torch

    from studio.core.demos.training import Split, with_label_noise

    y = torch.arange(1000) % 10
    noisy = with_label_noise(Split(torch.zeros(1000, 1), y), 0.2, 10, seed=3)
    assert int((noisy.y != y).sum()) == 200 and torch.equal(y, torch.arange(1000) % 10)  # a copy
    assert torch.equal(with_label_noise(Split(torch.zeros(1000, 1), y), 0.2, 10, seed=3).y, noisy.y)  # seeded
