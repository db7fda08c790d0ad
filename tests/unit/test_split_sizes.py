"""Issue 33.8: the yellow note said 129 training samples where the Data tab said 126 (a 180-image import). The Data
tab is right: it splits by ``core/datasets/splits.assign``, as training does (20 % of *all* samples for validation,
10 % for test, rounded per class); the note took 20 % of what was left after the test split. Both now count by the
same rules: ``splits.planned_sizes`` (counts only) equals ``sizes(assign(…))`` however the source is split."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.config.fit_check import fit_warnings, training_samples
from studio.core.datasets import splits
from studio.core.datasets.catalog import refresh_imported
from studio.core.datasets.importers.pipeline import import_path
from studio.core.datasets.summary import summarise
from tests.unit import import_fixtures as fx


@pytest.mark.parametrize("case", range(40))
def test_counting_the_split_gives_what_splitting_gives(case):
    rng = np.random.default_rng(case)
    classes, n = int(rng.integers(1, 9)), int(rng.integers(1, 400))
    y = rng.integers(0, classes, n)
    source = np.zeros(n, np.uint8)
    own = case % 4  # none, a test split, a validation split, both
    if own in (1, 3):
        source[rng.random(n) < 0.15] = splits.TEST
    if own in (2, 3):
        source[(source == splits.TRAIN) & (rng.random(n) < 0.2)] = splits.VAL
    val, test = float(rng.choice([0.0, 0.1, 0.2, 0.25, 0.3])), float(rng.choice([0.0, 0.1, 0.15, 0.2]))
    assert splits.planned_sizes(y, source, val, test) == splits.sizes(splits.assign(y, source, val, test, seed=case))


def test_the_note_counts_the_training_samples_the_data_tab_shows(tmp_path):
    fx.image_folder(tmp_path / "pets", per_class=60, odd_size_every=0)  # 180 images, 3 classes, no own split
    name = import_path(tmp_path / "pets")["name"]
    refresh_imported()
    config = RunConfig().with_overrides([f"data.name={name}", "train.batch_size=512"])
    shown = summarise(name, dict(config.data.params)).splits  # what the Data tab says
    assert shown == {"train": 126, "val": 36, "test": 18}
    assert training_samples(config) == shown["train"]  # 129 before
    note = " ".join(fit_warnings(config))
    assert "126 training samples" in note and "129" not in note
    config = config.with_overrides(["data.val_fraction=0.3", "data.test_fraction=0.2"])
    assert training_samples(config) == summarise(name, dict(config.data.params)).splits["train"]
