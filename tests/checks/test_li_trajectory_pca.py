"""Li et al. 2018, §7: two PCA directions explain 40–90 % of an SGD trajectory."""

import pytest

from studio.core.checks.catalog import run_check


def test_passes_on_its_default_set_up_and_on_a_held_out_seed():
    outcome = run_check("li_trajectory_pca")
    assert outcome.passed, outcome.to_dict()
    assert 0.40 <= sum(outcome.details["explained_variance"]) <= 0.90
    assert outcome.details["snapshots"] == 21
    held_out = run_check("li_trajectory_pca", seed=1)  # other initial weights, data subset and batch order
    assert held_out.passed, held_out.to_dict()


def test_fails_when_the_path_is_too_short_to_have_a_plane():
    # two epochs: three snapshots, two differences from the final weights -> two directions hold all of it
    outcome = run_check("li_trajectory_pca", epochs=2, train_samples=1000)
    assert not outcome.passed
    assert outcome.measures[0].ours == pytest.approx(1.0)
