"""The cache: instant re-import, atomic writes, cancel, registry refresh, names, splits, loading."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.contracts.progress import Cancelled
from studio.core.datasets import DATASETS, cache, splits
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.pipeline import import_path
from studio.core.datasets.importers.progress import Progress
from studio.core.errors import ConfigError, DataError
from tests.unit import import_fixtures as fx


def test_reimport_is_instant_and_writes_nothing(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=4)
    first = import_path(root)
    stamp = (cache.root() / "pets" / "x.npy").stat().st_mtime_ns
    calls = []
    second = import_path(root, progress=lambda r: calls.append(r.text))
    assert second["cached"] is True and second["name"] == first["name"]
    assert (cache.root() / "pets" / "x.npy").stat().st_mtime_ns == stamp
    assert not any("decoding" in s for s in calls)


def test_a_changed_source_or_options_is_imported_again(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=4)
    import_path(root)
    assert import_path(root, ImportOptions(size=(10, 10)))["cached"] is False
    fx.image_folder(tmp_path / "pets", classes=("fox",), per_class=2)
    report = import_path(root)
    assert report["cached"] is False and report["num_classes"] == 4


def test_cancel_leaves_no_entry(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=30)
    seen = []

    def cancelled() -> bool:
        return len(seen) > 0

    progress = Progress(lambda r: seen.append(r.text) if "decoding" in r.text else None, cancelled, interval=0)
    with pytest.raises(Cancelled, match="nothing was saved"):
        import_path(root, progress=progress)
    assert cache.entries() == []
    assert [p.name for p in cache.root().iterdir()] == []


def test_a_failure_while_saving_leaves_no_entry(tmp_path, monkeypatch):
    root = fx.image_folder(tmp_path / "pets", per_class=3)

    def broken_save(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "save", broken_save)
    with pytest.raises(OSError):
        import_path(root)
    assert list(cache.root().iterdir()) == []


def test_imported_datasets_join_the_registry_and_leave_it(tmp_path):
    assert "pets" not in DATASETS
    import_path(fx.image_folder(tmp_path / "pets", per_class=3))
    assert "pets" in DATASETS
    entry = DATASETS.get("pets")
    assert "imported" in entry.tags and "9 colour 20×24 images, 3 classes" in entry.description
    cfg = RunConfig().with_overrides(["data.name=pets", "data.aug_rotation=10"])
    assert cfg.data.params["val_fraction"] == 0.2 and cfg.data.params["aug_rotation"] == 10.0
    cache.remove("pets")
    assert "pets" not in DATASETS
    with pytest.raises(ConfigError, match="unknown dataset 'pets'"):
        RunConfig().with_overrides(["data.name=pets"])


def test_names_never_shadow_built_ins_and_are_checked(tmp_path):
    root = fx.image_folder(tmp_path / "spiral", per_class=3)
    assert import_path(root)["name"] == "spiral_2"  # "spiral" is a built-in dataset
    with pytest.raises(DataError, match="built-in dataset"):
        import_path(root, ImportOptions(name="moons"))
    with pytest.raises(DataError, match="classic dataset CIFAR-10"):
        import_path(root, ImportOptions(name="cifar10"))
    with pytest.raises(DataError, match="lower-case letters"):
        import_path(root, ImportOptions(name="Bad Name!"))
    other = fx.image_folder(tmp_path / "elsewhere" / "spiral", per_class=2)
    assert import_path(other)["name"] == "spiral_3"  # another source with the same folder name


def test_splits_are_stratified_seeded_and_70_20_10():
    y = np.repeat(np.arange(4), [50, 30, 10, 7])
    codes = splits.assign(y, np.zeros(len(y), np.uint8), seed=3)
    for c, n in zip(range(4), (50, 30, 10, 7), strict=True):
        counts = np.bincount(codes[y == c], minlength=3)
        assert counts[2] == round(n * 0.1)
        assert counts[1] == round((n - round(n * 0.1)) * (0.2 / 0.9))
    again = splits.assign(y, np.zeros(len(y), np.uint8), seed=3)
    other = splits.assign(y, np.zeros(len(y), np.uint8), seed=4)
    assert np.array_equal(codes, again)
    assert np.array_equal(codes == 2, other == 2)  # the test split does not depend on the run's seed
    assert not np.array_equal(codes, other)  # the validation split does
    with pytest.raises(DataError, match="sum must be below 1"):
        splits.assign(y, np.zeros(len(y), np.uint8), val_fraction=0.9, test_fraction=0.1)


def test_load_imported_gives_tensors_with_the_reported_splits(tmp_path):
    from studio.core.datasets.imported import load_imported

    report = import_path(fx.image_folder(tmp_path / "pets", per_class=10))
    data = load_imported("pets", seed=0)
    assert (len(data.y_train), len(data.y_val), len(data.y_test)) == tuple(report["splits"].values())
    assert data.input_shape == (3, 20, 24) and data.num_classes == 3 and data.is_image
    x_tr, y_tr, x_val, y_val = data.split_validation(0.1, 0)
    assert len(y_val) == report["splits"]["val"]  # its own validation split wins over train.val_fraction
    smaller = load_imported("pets", seed=0, val_fraction=0.0, test_fraction=0.5)
    assert (len(smaller.y_train), len(smaller.y_val), len(smaller.y_test)) == (15, 0, 15)


def test_a_damaged_entry_is_reported(tmp_path):
    import_path(fx.image_folder(tmp_path / "pets", per_class=3))
    (cache.root() / "pets" / "x.npy").write_bytes(b"garbage")
    with pytest.raises(DataError, match="damaged"):
        cache.load_arrays("pets")
