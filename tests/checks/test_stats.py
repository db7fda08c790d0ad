"""The paper checks' statistics (core/checks/stats.py) and the measures that use them (base.Measure.above, …)."""

from __future__ import annotations

import math

import pytest

from studio.core.checks.base import Measure
from studio.core.checks.stats import Z95, binomial, over_seeds, paired, repeat, seeds_of, short, t95


def test_over_seeds_is_the_mean_and_the_standard_error_with_students_t() -> None:
    est = over_seeds([1.0, 2.0, 3.0, 4.0, 5.0])
    assert est.mean == 3.0 and est.n == 5 and est.over == "seeds"
    assert est.se == pytest.approx(math.sqrt(2.5) / math.sqrt(5))
    assert est.crit == pytest.approx(2.132)  # one-sided 95 %, 4 degrees of freedom
    assert est.low == pytest.approx(3.0 - 2.132 * est.se) and est.high == pytest.approx(3.0 + 2.132 * est.se)
    assert est.values == (1.0, 2.0, 3.0, 4.0, 5.0)


def test_one_seed_has_no_margin_and_proves_nothing() -> None:
    est = over_seeds([7.0])
    assert est.mean == 7.0 and math.isinf(est.se) and math.isinf(est.margin)
    assert not Measure.above("x", est, 0.0, "").passed
    assert not Measure.below("x", est, 100.0, "").passed


def test_a_missing_value_makes_the_estimate_fail() -> None:
    est = over_seeds([1.0, float("nan"), 2.0])
    assert math.isnan(est.mean)
    assert not Measure.above("x", est, 0.0, "").passed
    assert not Measure.inside("x", est, 0.0, 3.0, "").passed


def test_binomial_and_paired_standard_errors() -> None:
    est = binomial(0.8, 2000)
    assert est.se == pytest.approx(math.sqrt(0.16 / 2000)) and est.crit == Z95
    # two models agreeing on 1,900 of 2,000 items, a right on 60 of the rest and b on 40: paired mean 0.01
    a = [1.0] * 1900 + [1.0] * 60 + [0.0] * 40
    b = [1.0] * 1900 + [0.0] * 60 + [1.0] * 40
    diff = paired(a, b)
    assert diff.mean == pytest.approx(0.01) and diff.n == 2000
    assert diff.se < math.sqrt(2 * 0.95 * 0.05 / 2000)  # the shared items are not noise: tighter than unpaired
    with pytest.raises(ValueError):
        paired([1.0], [1.0, 0.0])


def test_short_numbers_keep_two_significant_digits() -> None:
    assert [short(x) for x in (0.8223, 1.753, 0.07071, 15.74, 1753.0, 0.0)] == ["0.82", "1.8", "0.071", "16", "1800",
                                                                              "0"]
    assert short(None) == "n/a" and short(math.inf) == "inf"


def test_t_table_ends_at_the_normal_quantile() -> None:
    assert t95(1) == pytest.approx(6.314) and t95(30) == pytest.approx(1.697) and t95(500) == Z95
    assert math.isinf(t95(0))


def test_measures_take_the_margin_off_and_say_so() -> None:
    est = over_seeds([1.0, 1.2, 0.8, 1.1, 0.9])  # mean 1, s.e. 0.0707
    above = Measure.above("gain", est, 0.5, "paper")
    assert above.passed and above.band.startswith("mean − 2.132 × s.e. > 0.5")
    assert not Measure.above("gain", est, 0.9, "paper").passed  # 1 − 2.132·0.0707 = 0.849 < 0.9
    assert Measure.below("loss", est, 1.2, "paper").passed and not Measure.below("loss", est, 1.1, "paper").passed
    assert Measure.close_to("match", est, 1.0, 0.2, "paper").passed
    assert not Measure.close_to("match", est, 0.9, 0.2, "paper").passed  # 0.1 + 0.151 > 0.2
    assert Measure.inside("level", est, 0.95, 1.05, "paper", what="this set-up").passed
    text = above.ours_text()
    assert text.startswith("1 ± 0.071") and "5 seeds" in text and "margin 0.15)" in text
    row = above.to_dict()
    assert row["n"] == 5 and row["over"] == "seeds" and row["margin"] == pytest.approx(0.1508, abs=1e-4)
    assert "margin" not in Measure.at_least("plain", 1.0, 0.0, "p").to_dict()  # a plain measure: as before
    assert Measure.inside("level", est, 0.0, 2.0, "p").to_dict()["margin"] is None  # inside takes no margin


def test_an_estimate_exactly_at_the_bound_does_not_pass() -> None:
    """A regulariser switched off gives exactly the unregularised numbers: a gain of 0 ± 0 is not a gain."""
    zero = over_seeds([0.0, 0.0, 0.0])
    assert zero.se == 0 and zero.margin == 0
    assert not Measure.above("gain", zero, 0.0, "").passed


def test_repeat_splits_the_progress_over_the_seeds() -> None:
    seen: list[tuple[float, str]] = []
    out = repeat(lambda seed, sub: (sub(1.0, "done"), {"seed": seed})[1], seeds_of(3, 2),
                 lambda f, t: seen.append((f, t)))
    assert out == [{"seed": 3}, {"seed": 4}]
    assert seen == [(0.5, "seed 3 (1/2): done"), (1.0, "seed 4 (2/2): done")]
