"""The regularisation paper check: every regulariser narrows the gap by default; without it, no narrowing."""

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check


@pytest.mark.slow
def test_each_regulariser_narrows_the_gap_on_the_default_set_up():
    outcome = run_check("regularisation_gap")
    assert outcome.passed, [m.to_dict() for m in outcome.measures]
    gaps = outcome.details["gaps"]
    assert gaps["none"] >= 0.10
    assert all(gaps[name] <= gaps["none"] - 0.02 for name in ("dropout", "weight_decay", "augmentation")), gaps


def test_a_regulariser_switched_off_fails_it():
    # dropout 0 and λ = 0: those variants are the unregularised run (same weights, same batches) and narrow
    # nothing; augmentation is left out (a missing variant fails too). Small, so it is cheap.
    outcome = run_check("regularisation_gap", variants="none,dropout,weight_decay", dropout=0.0, weight_decay=0.0,
                        train_samples=300, val_samples=300, epochs=12, widths="128")
    assert not outcome.passed and not outcome.error
    by_label = {m.label.split(":")[0]: m for m in outcome.measures}
    assert by_label["dropout"].ours == 0.0 and not by_label["dropout"].passed
    assert by_label["weight decay"].ours == 0.0 and not by_label["weight decay"].passed
    assert by_label["augmentation"].ours is None and not by_label["augmentation"].passed


def test_the_demo_panel_runs_it_with_the_demo_defaults():
    from studio.core.demos.catalog import DEMOS

    check = next(c for c in checks_for_demo("regularisation") if c.name == "regularisation_gap")
    defaults = DEMOS.get("regularisation").defaults()
    assert {k: defaults[k] for k in check.preset} == check.preset  # the check runs what the lab shows
