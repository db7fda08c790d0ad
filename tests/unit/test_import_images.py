"""Folders of images: layouts, mixed sizes and modes, broken files, decompression bombs, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from studio.core.datasets import cache
from studio.core.datasets.importers.images import MAX_PIXELS, MAX_SIDE
from studio.core.datasets.importers.options import ImportOptions
from studio.core.datasets.importers.pipeline import import_path
from studio.core.errors import DataError
from tests.unit import import_fixtures as fx


def test_class_folders_with_mixed_modes_and_sizes(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=10)
    report = import_path(root)
    assert report["name"] == "pets"
    assert report["num_samples"] == 30 and report["num_classes"] == 3
    assert report["classes"] == ["cat", "dog", "emu"]
    assert report["shape"] == [3, 20, 24]  # colour (RGB/RGBA/P present); the most common size (w=24, h=20)
    assert report["class_counts"] == [10, 10, 10]
    assert report["splits"] == {"train": 21, "val": 6, "test": 3}  # 70/20/10 per class: 7/2/1 of each 10
    assert report["skipped"] == 0 and not report["cached"]
    arrays = cache.load_arrays("pets")
    assert arrays["x"].dtype == np.uint8 and arrays["x"].shape == (30, 3, 20, 24)
    # class brightness survives decoding: cat (darkest) < dog < emu
    means = [arrays["x"][arrays["y"] == c].mean() for c in range(3)]
    assert means[0] < means[1] < means[2]


def test_grey_images_stay_one_channel_and_size_can_be_chosen(tmp_path):
    root = fx.grey_folder(tmp_path / "grey", size=12)
    assert import_path(root)["shape"] == [1, 12, 12]
    report = import_path(root, ImportOptions(name="grey_rgb", size=(8, 10), channels=3))
    assert report["shape"] == [3, 8, 10]
    x = cache.load_arrays("grey_rgb")["x"]
    assert np.array_equal(x[:, 0], x[:, 1])  # grey replicated into the three channels


def test_big_images_are_scaled_to_fit_224(tmp_path):
    for c in ("a", "b"):
        (tmp_path / "big" / c).mkdir(parents=True)
        for i in range(2):
            Image.new("RGB", (600, 300), (10 * i, 0, 0)).save(tmp_path / "big" / c / f"{i}.png")
    report = import_path(tmp_path / "big")
    assert report["shape"] == [3, MAX_SIDE // 2, MAX_SIDE]


def test_corrupt_and_truncated_images_are_skipped_counted_and_named(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=6)
    names = fx.corrupt_files(root / "dog")
    report = import_path(root)
    assert report["num_samples"] == 18
    assert report["skipped"] == 2
    joined = " ".join(report["skipped_examples"])
    for name in names:
        assert name in joined
    assert "truncated" in joined and "not a readable image" in joined


def test_a_decompression_bomb_is_refused_and_the_rest_imported(tmp_path):
    root = fx.image_folder(tmp_path / "pets", per_class=4)
    fx.png_bomb(root / "cat" / "bomb.png", 30_000, 30_000)
    assert 30_000 * 30_000 > MAX_PIXELS
    report = import_path(root)
    assert report["num_samples"] == 12 and report["skipped"] == 1
    assert "bomb.png" in report["skipped_examples"][0] and "decompression bomb" in report["skipped_examples"][0]


def test_train_and_test_folders_become_the_splits(tmp_path):
    fx.image_folder(tmp_path / "ds" / "train", per_class=8)
    fx.image_folder(tmp_path / "ds" / "test", per_class=2, seed=1)
    report = import_path(tmp_path / "ds")
    assert report["source_splits"] == {"train": 24, "val": 0, "test": 6}
    # the test split is the source's; val is 20 % of the training part (round(8 * 0.2) = 2 per class)
    assert report["splits"] == {"train": 18, "val": 6, "test": 6}


def test_val_folder_is_kept_and_a_test_split_is_held_out(tmp_path):
    fx.image_folder(tmp_path / "ds" / "train", per_class=10)
    fx.image_folder(tmp_path / "ds" / "val", per_class=3, seed=2)
    report = import_path(tmp_path / "ds")
    assert report["source_splits"]["val"] == 9
    assert report["splits"] == {"train": 27, "val": 9, "test": 3}


def test_a_wrapper_folder_is_looked_through(tmp_path):
    fx.image_folder(tmp_path / "outer" / "inner", per_class=3)
    assert import_path(tmp_path / "outer")["num_samples"] == 9


def test_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="is empty"):
        import_path(tmp_path / "empty")


def test_a_single_class_is_refused(tmp_path):
    fx.image_folder(tmp_path / "one", classes=("cat",), per_class=3)
    with pytest.raises(DataError, match="only one class.*'cat'.*at least two"):
        import_path(tmp_path / "one")


def test_images_without_class_folders(tmp_path):
    folder = tmp_path / "loose"
    folder.mkdir()
    for i in range(3):
        Image.new("L", (5, 5)).save(folder / f"{i}.png")
    with pytest.raises(DataError, match="no class folders.*subfolder"):
        import_path(folder)


def test_no_images_found(tmp_path):
    for c in ("a", "b"):
        (tmp_path / "docs" / c).mkdir(parents=True)
        (tmp_path / "docs" / c / "notes.txt").write_text("hello")
    with pytest.raises(DataError, match="no dataset was found|no images were found"):
        import_path(tmp_path / "docs")


def test_every_image_broken(tmp_path):
    for c in ("a", "b"):
        (tmp_path / "bad" / c).mkdir(parents=True)
        (tmp_path / "bad" / c / "x.png").write_bytes(b"garbage")
    with pytest.raises(DataError, match="none of the 2 images"):
        import_path(tmp_path / "bad")
    assert cache.entries() == []


def test_a_single_image_or_a_random_file_is_not_a_dataset(tmp_path):
    Image.new("L", (5, 5)).save(tmp_path / "one.png")
    with pytest.raises(DataError, match="single image"):
        import_path(tmp_path / "one.png")
    (tmp_path / "notes.docx").write_bytes(b"\x01\x02 not a dataset")
    with pytest.raises(DataError, match="not a dataset Studio can read"):
        import_path(tmp_path / "notes.docx")
    with pytest.raises(DataError, match="does not exist"):
        import_path(tmp_path / "missing")


def test_animated_gifs_and_16_bit_pngs(tmp_path):
    for name in ("gif", "deep"):
        (tmp_path / "mixed" / name).mkdir(parents=True)
    for i in range(3):
        frames = [Image.new("P", (10, 10), color=(i + f) % 200) for f in range(3)]
        frames[0].save(tmp_path / "mixed" / "gif" / f"{i}.gif", save_all=True, append_images=frames[1:])
        deep = Image.fromarray(np.full((10, 10), 30000 + 1000 * i, np.uint16))
        deep.save(tmp_path / "mixed" / "deep" / f"{i}.png")
    report = import_path(tmp_path / "mixed")
    assert report["num_samples"] == 6 and report["skipped"] == 0 and report["shape"][1:] == [10, 10]
    x, y = cache.load_arrays("mixed")["x"], cache.load_arrays("mixed")["y"]
    deep_class = report["classes"].index("deep")
    assert 100 < x[y == deep_class].mean() < 160  # 16-bit values scaled to 0..255 (30000/65535 ≈ 117)
