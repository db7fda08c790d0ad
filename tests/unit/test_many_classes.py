"""Issue 39.4: labelled data with tens of thousands of classes is read in one pass (counting or splitting each class
separately was quadratic: importing 30,000 classes took 32 s here, 102 s in the issue; refusing 100,000 one-row
labels 14 s). The grouped code draws exactly the splits the per-class scans drew, so no run's data changes."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.datasets.splits import by_class, holdout


def holdout_as_it_was(y, pool, fraction, seed):
    rng = np.random.default_rng(seed)
    picked = []
    for c in np.unique(y[pool]):
        idx = np.flatnonzero(pool & (y == c))
        picked.append(rng.permutation(idx)[: round(len(idx) * fraction)])
    return np.concatenate(picked) if picked else np.zeros(0, np.int64)


def validation_as_it_was(y_train, classes, fraction, seed):
    import torch

    gen = torch.Generator().manual_seed(seed)
    val_idx = []
    for c in range(classes):
        idx = torch.nonzero(y_train == c).flatten()
        idx = idx[torch.randperm(len(idx), generator=gen)]
        val_idx.append(idx[: round(len(idx) * fraction)])
    return torch.cat(val_idx)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grouped_splits_draw_what_the_per_class_scans_drew(seed):
    import torch

    from studio.core.datasets.arrays import ArrayData

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 50, 3000) * 3  # labels with gaps: classes that never occur
    pool = rng.random(3000) < 0.7
    assert np.array_equal(holdout(y, pool, 0.2, seed), holdout_as_it_was(y, pool, 0.2, seed))
    assert [list(g) for g in by_class(y)] == [list(np.flatnonzero(y == c)) for c in np.unique(y)]
    y_train = torch.from_numpy(rng.integers(0, 40, 2000))
    y_train[y_train == 7] = 8  # a class with no sample: it still draws (randperm of 0)
    data = ArrayData(torch.zeros(2000, 1), y_train, torch.zeros(1, 1), torch.zeros(1, dtype=torch.int64),
                     classes=[str(i) for i in range(40)])
    x_train, y_kept, _, y_val = data.split_validation(0.25, seed)
    old = validation_as_it_was(y_train, 40, 0.25, seed)
    assert torch.equal(y_val, y_train[old]) and len(y_kept) == 2000 - len(old)


def test_a_regression_targets_split_is_untouched():
    import torch

    from studio.core.datasets.arrays import ArrayData

    y = torch.linspace(-1, 1, 100)
    data = ArrayData(torch.zeros(100, 1), y, torch.zeros(1, 1), torch.zeros(1), classes=["y"])
    assert torch.equal(data.split_validation(0.2, 0)[3], y[validation_as_it_was(y, 1, 0.2, 0)])


def test_30000_classes_and_100000_one_row_labels(tmp_path):
    from studio.core.datasets.text.labelled import class_counts, read_labelled
    from studio.core.errors import DataError

    many = tmp_path / "many.csv"
    many.write_text("text,label\n" + "".join(f"line {i} of the corpus,class{i % 30000}\n" for i in range(60000)))
    data = read_labelled(many)
    assert len(data.classes) == 30000 and set(class_counts(data.labels, 30000)) == {2}
    lonely = tmp_path / "lonely.csv"
    lonely.write_text("text,label\n" + "".join(f"line {i},c{i}\n" for i in range(100000)))
    with pytest.raises(DataError, match="needs at least 2 classes with 2\\+ lines each"):
        read_labelled(lonely)
