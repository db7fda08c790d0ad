"""Your own points for the classification playground (the ``custom`` point set): clicked in the picture, or read
from CSV text of 2-D points with a class each. Torch-free (the view draws them before any training) and Qt-free.

Points travel as the playground's ``points`` setting, the compact text ``"x,y,c;x,y,c;…"`` (``points_text``); a
CSV a person gives is read by ``read_csv`` (a header, any delimiter of comma, semicolon, tab or spaces, classes
named by any two words or numbers). Which points test the model is fixed per point: point ``i`` is a test point
when ``u_i ≥ train_ratio`` for the ``i``-th number of the seed's sequence, so adding or moving a point never changes
the role of the others.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from studio.core.errors import DataError

MAX_POINTS = 5000  # a playground of more points than this trains too slowly to follow live
MIN_FOR_TEST = 4  # with fewer points, all of them train (a test point would leave too few to learn from)


def grid_box(x: np.ndarray, pad: float = 0.25) -> tuple[float, float, float, float]:
    """The (x0, x1, y0, y1) box the decision boundary is drawn over: the points' extent and a margin."""
    x = np.asarray(x, dtype=float).reshape(-1, 2)
    if not len(x):
        return -1.0, 1.0, -1.0, 1.0
    lo, hi = x.min(axis=0), x.max(axis=0)
    margin = (hi - lo) * pad / 2 + 0.1
    return float(lo[0] - margin[0]), float(hi[0] + margin[0]), float(lo[1] - margin[1]), float(hi[1] + margin[1])


def points_text(xy: np.ndarray, labels: np.ndarray) -> str:
    """Points as the ``points`` setting: ``"x,y,c;…"`` with 4 decimals."""
    return ";".join(f"{x:.4g},{y:.4g},{int(c)}" for (x, y), c in zip(np.asarray(xy).reshape(-1, 2),
                                                                        np.asarray(labels).reshape(-1), strict=True))


def parse_points(text: str, two_classes: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The ``points`` setting back as (xy (n, 2) float, classes (n,) 0/1); DataError in one sentence. Without
    ``two_classes``, points being drawn: any count of either class (the classes are the numbers 0 and 1)."""
    rows = [r.split(",") for r in str(text).replace("\n", ";").split(";") if r.strip()]
    if not two_classes:
        values = np.array(rows, dtype=float).reshape(-1, 3) if rows else np.zeros((0, 3))
        return values[:, :2], (values[:, 2] > 0.5).astype(np.int64)
    if not rows:
        raise DataError("no points given: a custom point set needs points of two classes, as x, y, class")
    return _check(rows, "the points", "have")


def read_csv(text: str, name: str = "the CSV") -> tuple[np.ndarray, np.ndarray]:
    """2-D points with a class each from CSV text (columns x, y, class; a header line is skipped); the two classes
    become 0 and 1 in the order their names sort (0/1, a/b, …). DataError in one sentence on anything else."""
    lines = [line for line in str(text).splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise DataError(f"{name} has no points: give rows of x, y, class (e.g. 0.5, -1.2, 1)")
    sample = "\n".join(lines[:20])
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t ")
    except csv.Error:
        dialect = csv.excel
    rows = [[c.strip() for c in row if c.strip()] for row in csv.reader(io.StringIO("\n".join(lines)), dialect)]
    rows = [r for r in rows if r]
    if rows and not _number(rows[0][0]) and not _number(rows[0][1] if len(rows[0]) > 1 else ""):
        rows = rows[1:]  # a header: x, y, class
    return _check(rows, name)


def _number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _check(rows: list[list[str]], name: str, has: str = "has") -> tuple[np.ndarray, np.ndarray]:
    if not rows:
        raise DataError(f"{name} {has} no points: give rows of x, y, class (e.g. 0.5, -1.2, 1)")
    if len(rows) > MAX_POINTS:
        raise DataError(f"{name} {has} {len(rows):,} points; the playground takes at most {MAX_POINTS:,}")
    xy = np.zeros((len(rows), 2))
    names: list[str] = []
    for i, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if len(cells) != 3:
            raise DataError(f"{name}, point {i}: a point is three values, x, y and its class; got {len(cells)}")
        for j in (0, 1):
            if not _number(cells[j]):
                raise DataError(f"{name}, point {i}: {cells[j]!r} is not a number (x and y are numbers)")
            xy[i - 1, j] = float(cells[j])
        names.append(_label(cells[2]))
    classes = sorted(set(names), key=_sort_key)
    if len(classes) < 2:
        raise DataError(f"{name} {has} only one class ({classes[0]}): the playground needs points of two classes")
    if len(classes) > 2:
        raise DataError(f"{name} {has} {len(classes)} classes ({', '.join(classes[:4])}); the playground separates "
                        "two")
    return xy, np.array([classes.index(n) for n in names], dtype=np.int64)


def _label(text: str) -> str:
    """A class name as written; numbers alike (1, 1.0) are one class."""
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{value:g}" if math.isfinite(value) else text


def _sort_key(label: str) -> tuple[int, float, str]:
    try:
        return 0, float(label), label
    except ValueError:
        return 1, 0.0, label


def custom_split(xy: np.ndarray, labels: np.ndarray, train_ratio: float,
                 seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test) of your points: point ``i`` tests when ``u_i ≥ train_ratio`` (``u``: the
    seed's uniform sequence, the same prefix whatever the count), and every point trains when there are fewer than
    ``MIN_FOR_TEST`` or the rule would leave no training point."""
    xy = np.asarray(xy, dtype=np.float32).reshape(-1, 2)
    labels = np.asarray(labels, dtype=np.int64).reshape(-1)
    test = test_mask(len(labels), train_ratio, seed)
    return xy[~test], labels[~test], xy[test], labels[test]


def test_mask(n: int, train_ratio: float, seed: int) -> np.ndarray:
    """Which of ``n`` own points test the model (see :func:`custom_split`)."""
    test = np.random.default_rng(seed).random(n) >= train_ratio
    if n < MIN_FOR_TEST or test.all():
        test = np.zeros(n, dtype=bool)
    return test
