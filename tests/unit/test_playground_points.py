"""Your own points in the playground (core/demos/points.py, the ``custom`` point set): CSV read in any common
shape, bad input refused in one sentence, a point's train/test role fixed as points are added, and the live
training taking new points without losing its weights."""

from __future__ import annotations

import re

import numpy as np
import pytest

from studio.core.demos import points
from studio.core.errors import DataError


def test_a_csv_with_a_header_and_named_classes_is_read():
    xy, labels = points.read_csv("x;y;kind\n0.5;-1;cat\n1.5;2;dog\n-3;0.25;cat\n")
    np.testing.assert_allclose(xy, [[0.5, -1], [1.5, 2], [-3, 0.25]])
    assert list(labels) == [0, 1, 0]  # classes in sorted order: cat 0, dog 1


def test_numeric_classes_sort_as_numbers_and_tabs_work():
    xy, labels = points.read_csv("1\t2\t10\n3\t4\t9\n5\t6\t10.0\n")
    assert list(labels) == [1, 0, 1] and xy.shape == (3, 2)


@pytest.mark.parametrize("text, words", [
    ("x,y,c\n1,2,0\n1,abc,1\n", "point 2: 'abc' is not a number"),
    ("1,2,0\n3,4,0\n", "only one class (0)"),
    ("1,2,0\n3,4,1\n5,6,2\n", "3 classes"),
    ("1,2\n3,4\n", "point 1: a point is three values"),
    ("# nothing\n", "has no points"),
])
def test_bad_csv_is_refused_in_one_sentence(text, words):
    with pytest.raises(DataError, match=re.escape(words)) as err:
        points.read_csv(text, "points.csv")
    assert "\n" not in str(err.value) and str(err.value).startswith("points.csv")


def test_too_many_points_are_refused():
    text = "\n".join(f"{i},{i},{i % 2}" for i in range(points.MAX_POINTS + 1))
    with pytest.raises(DataError, match="at most"):
        points.read_csv(text)


def test_the_setting_text_round_trips():
    xy, labels = np.array([[0.125, -2.5], [3.0, 4.0]]), np.array([1, 0])
    back_xy, back_labels = points.parse_points(points.points_text(xy, labels))
    np.testing.assert_allclose(back_xy, xy)
    assert list(back_labels) == [1, 0]
    with pytest.raises(DataError, match="no points given"):
        points.parse_points("")


def test_a_points_role_does_not_change_when_points_are_added():
    rng = np.random.default_rng(1)
    xy, labels = rng.normal(size=(40, 2)), np.arange(40) % 2
    small = points.custom_split(xy[:20], labels[:20], 0.5, seed=3)
    large = points.custom_split(xy, labels, 0.5, seed=3)
    test_small = {tuple(p) for p in small[2]}
    test_large = {tuple(p) for p in large[2]}
    assert test_small and test_small <= test_large  # the first 20 keep their roles
    assert len(large[0]) + len(large[2]) == 40


def test_a_handful_of_points_all_train():
    xtr, _ytr, xte, _yte = points.custom_split(np.zeros((3, 2)), np.array([0, 1, 0]), 0.5, seed=0)
    assert len(xtr) == 3 and len(xte) == 0


def test_the_live_playground_takes_new_points_and_keeps_its_weights():
    pytest.importorskip("torch")
    from studio.core.demos.catalog import DEMOS
    from studio.core.demos.playground import Playground

    params = DEMOS.resolve("playground", {"dataset": "custom", "points": "0,0,0;1,1,0;0,1,1;1,0,1"}, "demo")
    state = Playground(params)
    state.train(20)
    before = [p.detach().clone() for p in state.model.parameters()]
    notes = state.apply({"points": "0,0,0;1,1,0;0,1,1;1,0,1;2,2,1;-1,-1,0"})
    assert notes and "your 6 points" in notes[0]
    assert len(state.ytr) + len(state.yte) == 6
    assert all(bool((a == b).all()) for a, b in zip(before, state.model.parameters(), strict=True))
    frame = state.frame()
    assert frame["p"].shape == (params["resolution"],) * 2
