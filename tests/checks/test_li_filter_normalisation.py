"""Li et al. 2018, §4–5: filter normalisation keeps "flatter = better"; raw directions follow the weights' scale
(means over seeds, one-sided 95 % margins)."""

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
@pytest.mark.pooled_check("li_filter_normalisation", seed=6)
def test_held_out_seeds_pass_too(pooled_check):
    """Seeds 6–11 (the default 0–5 run in test_all_checks)."""
    outcome = pooled_check("li_filter_normalisation", seed=6)
    assert outcome.passed, outcome.to_dict()
    assert len(outcome.measures) == 3  # the shrunk net's filter-normalised curvature is no measure: it is implied
    for r in outcome.details["per_seed"]:
        curv = r["curvature"]
        # shrinking the weights (the same function) leaves the filter-normalised curvature as it was ...
        assert curv["small_shrunk"]["normalised"] == pytest.approx(curv["small"]["normalised"], rel=0.02)
        # ... and makes the raw one ~1/0.1² larger
        assert curv["small_shrunk"]["raw"] > 30 * curv["small"]["raw"]


def test_fails_when_the_weights_keep_their_scale():
    """No shrinking (what weight decay does in the paper): the raw plot is not inverted, its measure FAILs."""
    outcome = run_check("li_filter_normalisation", epochs=5, train_samples=1000, shrink=1.0, directions=1, seeds=2)
    assert not outcome.error and not outcome.passed
    inverted = outcome.measures[2]
    assert "un-normalised" in inverted.label and not inverted.passed


def test_without_filter_normalisation_the_curvature_follows_the_weights_scale():
    """Why the shrunk net's filter-normalised curvature is no measure: with filter normalisation it equals the
    unshrunk net's by construction; without it, it is ~1/0.1² larger."""
    outcome = run_check("li_filter_normalisation", epochs=5, train_samples=1000, filter_normalise=False,
                        directions=1, seeds=1)
    curv = outcome.details["curvature"]
    assert curv["small_shrunk"]["normalised"] > 30 * curv["small"]["normalised"]
