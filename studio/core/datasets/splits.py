"""Train/val/test splits of an imported dataset: stratified and seeded, in numpy (the GUI shows
them without torch).

The source's own splits are kept. When it has no test split, ``test_fraction`` of every class is
held out with a fixed seed (the test set never changes between runs); when it has no validation
split, ``val_fraction`` is held out with the run's seed, like ``ArrayData.split_validation``
(per class, ``round(n * fraction)`` samples). Defaults: 70/20/10.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.core.errors import DataError
from studio.core.vocab import SPLITS

if TYPE_CHECKING:  # numpy is imported where it is used: the registry imports this module's constants
    import numpy as np

TRAIN, VAL, TEST = 0, 1, 2  # the split codes: indexes into SPLITS
DEFAULT_VAL = 0.2
DEFAULT_TEST = 0.1
TEST_SEED = 0


def holdout(y: np.ndarray, pool: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """Indices of ``round(n_c * fraction)`` random samples of each class c among ``pool`` (a mask)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    picked = [rng.permutation(idx)[: round(len(idx) * fraction)] for idx in by_class(y, pool)]
    return np.concatenate(picked) if picked else np.zeros(0, np.int64)


def by_class(y: np.ndarray, pool: np.ndarray | None = None) -> list[np.ndarray]:
    """The indices of each class present (in ``pool``, a mask), ascending, classes in sorted order: one sort, where
    a scan per class was quadratic in the number of classes."""
    import numpy as np

    where = np.flatnonzero(pool) if pool is not None else np.arange(len(y))
    labels = np.asarray(y)[where]
    order = np.argsort(labels, kind="stable")  # stable: each class keeps its indices ascending
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return [where[part] for part in np.split(order, cuts)] if len(order) else []


def assign(y: np.ndarray, source: np.ndarray, val_fraction: float = DEFAULT_VAL,
           test_fraction: float = DEFAULT_TEST, seed: int = 0) -> np.ndarray:
    """Split codes (0 train, 1 val, 2 test) for every sample, from the source's codes ``source``."""
    import numpy as np

    codes = np.array(source, dtype=np.uint8, copy=True)
    has_test, has_val = bool((codes == TEST).any()), bool((codes == VAL).any())
    if not 0 <= val_fraction < 1 or not 0 <= test_fraction < 1:
        raise DataError("data.val_fraction and data.test_fraction must each be at least 0 and below 1")
    if not has_test and test_fraction > 0:
        codes[holdout(y, codes == TRAIN, test_fraction, TEST_SEED)] = TEST
    if not has_val and val_fraction > 0:
        share = val_fraction if has_test else val_fraction / (1 - test_fraction)
        if share >= 1:
            raise DataError(f"data.val_fraction ({val_fraction}) and data.test_fraction ({test_fraction}) leave "
                            "nothing to train on; their sum must be below 1")
        codes[holdout(y, codes == TRAIN, share, seed)] = VAL
    return codes


def planned_sizes(y: np.ndarray, source: np.ndarray, val_fraction: float = DEFAULT_VAL,
                  test_fraction: float = DEFAULT_TEST) -> dict[str, int]:
    """``sizes(assign(y, source, val_fraction, test_fraction))`` from counts alone: the same per-class rounding,
    no permutation (the fit check asks at every edit of the settings; which samples go where does not change how
    many)."""
    import numpy as np

    codes = np.asarray(source, dtype=np.int64)
    labels = np.asarray(y, dtype=np.int64)
    classes = int(labels.max()) + 1 if len(labels) else 0
    per_class = np.bincount(labels * 3 + codes, minlength=3 * classes).reshape(classes, 3)  # class × split code
    has_test, has_val = bool(per_class[:, TEST].any()), bool(per_class[:, VAL].any())
    train, val, test = (per_class[:, i].tolist() for i in (TRAIN, VAL, TEST))
    if not has_test and test_fraction > 0:
        held = [round(n * test_fraction) for n in train]
        train, test = [n - h for n, h in zip(train, held, strict=True)], [t + h for t, h in zip(test, held,
                                                                                                  strict=True)]
    if not has_val and val_fraction > 0:
        share = val_fraction if has_test else val_fraction / (1 - test_fraction)
        held = [round(n * share) for n in train]
        train, val = [n - h for n, h in zip(train, held, strict=True)], [v + h for v, h in zip(val, held, strict=True)]
    return {name: int(sum(part)) for name, part in zip(SPLITS, (train, val, test), strict=True)}


def sizes(codes: np.ndarray) -> dict[str, int]:
    return {name: int((codes == i).sum()) for i, name in enumerate(SPLITS)}
