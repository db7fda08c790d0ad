"""Li et al. 2018, §4–5: filter normalisation keeps "flatter = better"; raw directions follow the weights' scale."""

import pytest

from studio.core.checks.catalog import run_check


@pytest.mark.slow
def test_passes_on_its_default_set_up():
    outcome = run_check("li_filter_normalisation")
    assert outcome.passed, outcome.to_dict()
    curv = outcome.details["curvature"]
    assert curv["small"]["normalised"] < curv["large"]["normalised"]
    # shrinking the weights (the same function) leaves the filter-normalised curvature as it was ...
    assert curv["small_shrunk"]["normalised"] == pytest.approx(curv["small"]["normalised"], rel=0.02)
    # ... and makes the raw one ~1/0.1² larger
    assert curv["small_shrunk"]["raw"] > 30 * curv["small"]["raw"]


def test_fails_without_filter_normalisation():
    outcome = run_check("li_filter_normalisation", epochs=5, train_samples=1000, filter_normalise=False,
                        directions=1)
    assert not outcome.passed
    scale_test = outcome.measures[3]
    assert "weights ×0.1" in scale_test.label and not scale_test.passed
