"""The optimizer race on the 2-D test functions: the quadratic's textbook facts."""

import numpy as np
import pytest

from studio.core.demos.common import parse_optimizer_specs
from studio.core.demos.functions import NAMES, get_function
from studio.core.errors import ConfigError


def test_gd_converges_below_and_diverges_above_two_over_lambda_max():
    # f = ½(x²/κ + y²): λ_max = 1, so the limit is η = 2
    from studio.core.demos import race

    result = race.run(function="quadratic", condition=10.0, optimizers="gd(lr=1.9); gd(lr=2.1)", steps=300)
    outcome = result["summary"]["optimizers"]
    assert isinstance(outcome["gd(lr=1.9)"]["steps_to_tol"], int)
    assert outcome["gd(lr=1.9)"]["final_gap"] < 1e-6
    assert outcome["gd(lr=2.1)"]["steps_to_tol"] == "diverged"
    gaps = result["gaps"][1]
    finite = gaps[np.isfinite(gaps)]
    assert finite[-1] > 100 * finite[0]  # it grew, it did not just stall


def test_gd_rate_on_the_steep_axis_is_one_minus_eta_lambda():
    from studio.core.demos import race

    fn = get_function("quadratic", 10.0)
    racer = race.run_racer(fn, "gd", {"lr": "0.5"}, 5, (0.0, 1.0), 1e-6)
    # along y (λ = 1) each step multiplies the coordinate by 1 − 0.5·1
    np.testing.assert_allclose(racer["path"][:, 1], 0.5 ** np.arange(6), rtol=1e-12)


def test_newton_arrives_in_one_step():
    from studio.core.demos import race

    for condition in (1.0, 10.0, 1000.0):
        result = race.run(function="quadratic", condition=condition, optimizers="newton", steps=3)
        assert result["summary"]["optimizers"]["newton"]["steps_to_tol"] == 1
        np.testing.assert_allclose(result["paths"][0, 1], [0.0, 0.0], atol=1e-10)


def test_every_function_runs_its_preset_and_its_minimum_is_where_it_says():
    from studio.core.demos import race

    for name in NAMES:
        fn = get_function(name)
        for point in fn.minima:
            assert abs(fn(*point) - fn.minimum) < 1e-8, name
        result = race.run(function=name, steps=20)
        assert result["paths"].shape[1:] == (21, 2)
        assert result["grid"]["z"].shape == (len(result["grid"]["y"]), len(result["grid"]["x"]))
        np.testing.assert_allclose(result["paths"][:, 0], np.tile(fn.start, (len(result["labels"]), 1)))


def test_momentum_overshoots_the_minimum_and_settles():
    from studio.core.demos import race

    fn = get_function("quadratic", 10.0)
    racer = race.run_racer(fn, "momentum", {"lr": "0.3", "momentum": "0.8"}, 300, fn.start, 1e-6)
    x = racer["path"][:, 0]  # starts at x < 0: crossing zero is an overshoot
    assert (x > 0).any()
    assert racer["steps_to_tol"] is not None


def test_optimizer_specs_are_parsed_and_bad_ones_refused():
    from studio.core.demos import race

    assert parse_optimizer_specs("gd(lr=1.9); adam ( lr = 0.1 , beta1=0.8 );newton") == [
        ("gd", {"lr": "1.9"}), ("adam", {"lr": "0.1", "beta1": "0.8"}), ("newton", {})]
    with pytest.raises(ConfigError):
        parse_optimizer_specs("gd(lr)")
    with pytest.raises(ConfigError):
        race.run(optimizers="gd(speed=2)", steps=2)


def test_an_added_optimizer_takes_the_preset_setting_or_the_catalog_learning_rate():
    from studio.core.demos.race_presets import PRESETS, add_to_line_up, suggested_spec

    assert suggested_spec("adam", "quadratic") == "adam(lr=0.3)"  # the quadratic preset's Adam
    assert suggested_spec("momentum", "rosenbrock") == "momentum(lr=0.001, momentum=0.9)"
    assert suggested_spec("nadam", "quadratic") == "nadam(lr=0.3)"  # not in the preset: Adam's lr there
    assert suggested_spec("nesterov", "beale") == "nesterov(lr=0.005)"  # momentum's lr on Beale
    assert suggested_spec("lamb", "quadratic") == "lamb(lr=0.001)"  # no relative: the catalog's default
    assert suggested_spec("newton", "beale") == "newton"
    assert add_to_line_up("auto", "saddle", "rmsprop") == PRESETS["saddle"] + "; rmsprop(lr=0.001)"
    assert add_to_line_up("gd(lr=1.9);", "quadratic", "adam") == "gd(lr=1.9); adam(lr=0.3)"
    assert add_to_line_up(" ", "quadratic", "lars") == "lars(lr=0.1)"


def test_every_catalog_optimizer_added_to_the_race_runs():
    """What the GUI's Add menu writes is a line-up the race accepts, for every optimizer in the catalog."""
    from studio.core.demos import race
    from studio.core.demos.race_presets import add_to_line_up
    from studio.core.optim.catalog import OPTIMIZERS

    line_up = "gd(lr=0.5)"
    for name in OPTIMIZERS.names():
        line_up = add_to_line_up(line_up, "quadratic", name)
    result = race.run(function="quadratic", optimizers=line_up, steps=20)
    assert len(result["labels"]) == len(OPTIMIZERS.names()) + 1
    assert np.isfinite(result["paths"][:, 1]).all()  # every racer took its first step
