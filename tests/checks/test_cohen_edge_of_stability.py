"""The edge-of-stability paper check (Cohen et al. 2021): PASS on a held-out seed (its set-up runs in
test_all_checks), FAIL on broken ones."""

import pytest

from studio.core.checks.catalog import checks_for_demo, run_check


@pytest.mark.slow
@pytest.mark.pooled_check("cohen_edge_of_stability", seed=1, momentum_run=False)
def test_the_check_passes_on_a_held_out_seed(pooled_check):
    # other initial weights and another 1,000-image subset; the momentum run (seed 0) is the set-up's, run by
    # test_all_checks, so only the main run here
    outcome = pooled_check("cohen_edge_of_stability", seed=1, momentum_run=False)
    assert outcome.passed, [(m.label, m.ours, m.band) for m in outcome.measures if not m.passed] or outcome.error
    main = outcome.details["main"]
    assert main["threshold"] == pytest.approx(40.0) and "momentum" not in outcome.details
    assert main["start_ratio"] < 0.7 and 0.9 <= main["edge_median_ratio"] <= 1.1


def test_too_few_steps_to_reach_the_edge_fails():
    outcome = run_check("cohen_edge_of_stability", steps=100, momentum_run=False, n_samples=500)
    assert not outcome.error and not outcome.passed
    reached = next(m for m in outcome.measures if "reaches" in m.label)
    assert not reached.passed and reached.ours is None
    assert next(m for m in outcome.measures if "step 0" in m.label).passed  # it was sharpening, just not there yet


def test_the_plain_2_over_eta_threshold_fails_once_momentum_is_on():
    outcome = run_check("cohen_edge_of_stability", momentum=0.9, assume="gd", momentum_run=False, steps=300,
                        n_samples=500)
    assert not outcome.error and not outcome.passed
    median = next(m for m in outcome.measures if "median" in m.label)
    assert not median.passed and median.ours > 1.5  # it settles near (2 + 2β)/η = 1.9 × 2/η instead


def test_the_demo_panel_runs_it_and_its_preset_is_a_set_of_demo_parameters():
    from studio.core.demos.catalog import DEMOS

    (check,) = checks_for_demo("edge_of_stability")
    assert check.name == "cohen_edge_of_stability"
    DEMOS.resolve("edge_of_stability", check.preset, "preset")  # every key is a parameter of the demo
