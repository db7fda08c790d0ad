"""The linear neuron's paper check: GD reaches least squares, SGD's spread shrinks as 1/B — and a set-up that
holds η/B fixed (η scaled with B) fails it."""

import warnings

from studio.core.checks.catalog import CHECKS, run_check
from studio.core.demos.catalog import DEMOS


def test_passes_on_the_demo_defaults_and_on_a_held_out_seed():
    outcome = run_check("linear_neuron_sgd_noise")
    assert outcome.passed, outcome.to_dict()
    held_out = run_check("linear_neuron_sgd_noise", seed=1)  # other points and other batches
    assert held_out.passed, held_out.to_dict()
    slope = outcome.measures[1].ours
    assert slope is not None and -1.5 <= slope <= -0.7
    defaults = DEMOS.resolve("linear_neuron", {}, "t")
    preset = CHECKS["linear_neuron_sgd_noise"].preset
    assert {k: defaults[k] for k in preset} == preset  # the check runs what the demo shows


def test_fails_when_the_learning_rate_grows_with_the_batch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outcome = run_check("linear_neuron_sgd_noise", scale_lr=True, lr=0.05)
    assert not outcome.passed
    gd, slope = outcome.measures
    assert gd.passed and not slope.passed  # GD still reaches least squares; the spread no longer shrinks
