"""The learning-rate range test's maths on a synthetic loss curve whose answer is known: the ramp, the smoothing,
when it stops (the loss blew up) and the two suggestions (steepest descent, minimum ÷ 10)."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.contracts.lr_find import LrFindRequest, suggestion_line
from studio.core.errors import ConfigError
from studio.core.maths.lr_range import diverged, ramp, smoothed, suggest


def synthetic(lrs: np.ndarray) -> np.ndarray:
    """A loss flat at 2.3 for tiny rates, falling fastest around lr = 1e-3 (a logistic in log10 lr), bottoming out
    near 1e-1 and blowing up past it: a range test's usual shape."""
    u = np.log10(lrs)
    fall = 2.0 / (1 + np.exp(-3 * (u + 3)))  # steepest at u = −3
    blow = np.exp(4 * (u + 1)) * 0.3  # grows past u = −1
    return 2.3 - fall + blow


def test_the_suggestions_on_a_known_curve() -> None:
    lrs = ramp(1e-6, 10, 300)
    assert lrs[0] == pytest.approx(1e-6) and lrs[-1] == pytest.approx(10) and np.all(np.diff(np.log(lrs)) > 0)
    losses = synthetic(lrs)
    found = suggest(lrs, losses)  # unsmoothed: the exact shape
    assert np.log10(found.steepest) == pytest.approx(-3, abs=0.05)
    lowest = lrs[np.argmin(losses)]
    assert found.min_over_10 == pytest.approx(lowest / 10)
    assert found.steepest_index < found.min_index


def test_noise_is_smoothed_and_the_steepest_after_the_minimum_never_counts() -> None:
    rng = np.random.default_rng(0)
    lrs = ramp(1e-6, 10, 400)
    noisy = synthetic(lrs) * np.exp(rng.normal(0, 0.05, len(lrs)))
    found = suggest(lrs, smoothed(noisy))
    assert -3.6 < np.log10(found.steepest) < -2.4  # the EMA lags a little: it shifts right, not far
    assert found.steepest < found.min_over_10 * 10  # before the bottom, not where the loss climbs


def test_the_ramp_stops_once_the_loss_blows_up() -> None:
    assert not diverged(np.array([2.0, 1.5, 1.0, 0.8, 0.7, 0.6, 2.3]))
    assert diverged(np.array([2.0, 1.5, 1.0, 0.8, 0.7, 0.5, 2.1]))  # > 4 × its lowest
    assert diverged(np.array([1.0, np.nan]))
    assert not diverged(np.array([]))


def test_a_flat_loss_has_no_steepest_and_says_so() -> None:
    lrs = ramp(1e-6, 1, 50)
    flat = suggest(lrs, np.r_[np.full(40, 2.3), np.linspace(2.3, 9, 10)])  # flat, then it blows up
    assert flat.steepest is None and flat.min_over_10 is None
    result = {"suggestion": flat.to_dict(), "optimizer": "sgd"}
    assert "no suggestion: the loss never fell" in suggestion_line(result)  # type: ignore[arg-type]
    assert suggest(lrs[:2], np.array([1.0, 2.0])).steepest is None


@pytest.mark.parametrize("kw, words", [({"start_lr": 0}, "above 0"), ({"start_lr": 1.0, "end_lr": 0.1}, "goes up"),
                                       ({"steps": 3}, "10 to")])
def test_bad_requests_are_one_sentence(kw: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        LrFindRequest("", **kw).validate()
