"""Batch-wise augmentation: the transforms, fills, centering, where they apply, the preview."""

from __future__ import annotations

import pytest

from studio.core.datasets.importers.pipeline import import_path
from tests.unit import import_fixtures as fx


def unit_stats():
    """A mean of 0 and a deviation of 1, shaped like the data's per-channel statistics."""
    import torch

    return torch.zeros(1, 1, 1, 1), torch.ones(1, 1, 1, 1)


def test_no_transform_is_the_identity():
    import torch

    from studio.engine.loop.augment import Augmenter

    x = torch.randn(5, 3, 9, 13)
    out = Augmenter({}, *unit_stats())(x)
    assert torch.allclose(out, x, atol=1e-5)


def test_flips_mirror_each_image_or_leave_it():
    import torch

    from studio.engine.loop.augment import Augmenter

    x = torch.randn(64, 1, 6, 8)
    out = Augmenter({"aug_hflip": True}, *unit_stats(), torch.Generator().manual_seed(0))(x)
    flipped = torch.tensor([torch.allclose(o, xi.flip(-1), atol=1e-5) for o, xi in zip(out, x, strict=True)])
    same = torch.tensor([torch.allclose(o, xi, atol=1e-5) for o, xi in zip(out, x, strict=True)])
    assert bool((flipped | same).all()) and 10 < int(flipped.sum()) < 54
    out = Augmenter({"aug_vflip": True}, *unit_stats(), torch.Generator().manual_seed(1))(x)
    assert any(torch.allclose(o, xi.flip(-2), atol=1e-5) for o, xi in zip(out, x, strict=True))


def test_rotation_is_a_true_rotation_in_pixel_space_on_wide_images():
    import torch

    from studio.engine.loop.augment import Augmenter

    aug = Augmenter({"aug_rotation": 40}, *unit_stats(), torch.Generator().manual_seed(0))
    h, w = 10, 30
    theta = aug.matrices(200, h, w, torch.device("cpu"))
    d = torch.diag(torch.tensor([w / 2, h / 2]))
    pixel = d @ theta[:, :, :2] @ torch.linalg.inv(d)
    eye = torch.eye(2).expand(200, 2, 2)
    assert torch.allclose(pixel @ pixel.transpose(1, 2), eye, atol=1e-5)  # orthonormal: no shear, no stretch
    angles = torch.rad2deg(torch.atan2(pixel[:, 1, 0], pixel[:, 0, 0]))
    assert angles.abs().max() <= 40 + 1e-4 and angles.abs().max() > 30


def test_shift_and_zoom_ranges():
    import torch

    from studio.engine.loop.augment import Augmenter

    aug = Augmenter({"aug_width_shift": 0.1, "aug_height_shift": 0.2, "aug_zoom": 0.3}, *unit_stats(),
                    torch.Generator().manual_seed(0))
    theta = aug.matrices(500, 8, 8, torch.device("cpu"))
    assert theta[:, 0, 2].abs().max() <= 0.2 and theta[:, 0, 2].abs().max() > 0.15
    assert theta[:, 1, 2].abs().max() <= 0.4 and theta[:, 1, 2].abs().max() > 0.3
    assert theta[:, 0, 0].min() >= 0.7 - 1e-6 and theta[:, 0, 0].max() <= 1.3 + 1e-6


@pytest.mark.parametrize("fill", ["nearest", "constant", "reflect"])
def test_fill_modes(fill):
    import torch

    from studio.engine.loop.augment import Augmenter

    mean, std = torch.full((1, 1, 1, 1), 0.5), torch.full((1, 1, 1, 1), 0.25)
    x = torch.full((4, 1, 8, 8), 2.0)  # a bright image in normalised units
    out = Augmenter({"aug_width_shift": 0.5, "aug_fill": fill}, mean, std, torch.Generator().manual_seed(3))(x)
    if fill == "constant":
        black = (0 - 0.5) / 0.25
        assert torch.isclose(out, torch.tensor(black)).any()  # shifted-in pixels are black
        assert out.min() >= black - 1e-5
    else:
        assert torch.allclose(out, x, atol=1e-5)  # a flat image stays flat with edge or mirror fill


def test_attach_augments_training_only_and_centres_every_split():
    import torch

    from studio.engine.loop.augment import attach
    from studio.engine.loop.device_data import DeviceData

    x = torch.randint(0, 255, (20, 1, 6, 6), dtype=torch.uint8)
    y = torch.arange(20) % 2
    mean, std = torch.full((1, 1, 1, 1), 0.4), torch.full((1, 1, 1, 1), 0.3)
    train, val = DeviceData(x, y, mean, std, torch.device("cpu")), DeviceData(x, y, mean, std, torch.device("cpu"))
    aug = attach({"aug_rotation": 20.0, "aug_samplewise_center": True, "val_fraction": 0.2}, train, val)
    assert aug is train.augment and val.augment is None
    xb, yb = train.batch(torch.arange(8))
    assert xb.shape == (8, 1, 6, 6) and torch.equal(yb, y[:8])
    assert torch.allclose(xb.mean(dim=(1, 2, 3)), torch.zeros(8), atol=1e-5)
    xv, _ = next(val.slices(20, _Single()))
    assert torch.allclose(xv.mean(dim=(1, 2, 3)), torch.zeros(20), atol=1e-5)
    plain = DeviceData(x, y, mean, std, torch.device("cpu"))
    assert attach({"aug_rotation": 0.0}, plain) is None and plain.augment is None and not plain.center
    points = DeviceData(torch.randn(10, 2), y[:10], torch.zeros(1, 2), torch.ones(1, 2), torch.device("cpu"))
    assert attach({"aug_hflip": True}, points) is None and points.augment is None


class _Single:
    rank, world_size = 0, 1


def test_preview_shows_the_batch_before_and_after(tmp_path):
    from studio.engine.loop.augment import preview

    import_path(fx.image_folder(tmp_path / "pets", per_class=6))
    result = preview("pets", {"aug_rotation": 30.0, "aug_hflip": True}, count=8, seed=0)
    assert result["before"].shape == result["after"].shape == (8, 3, 20, 24)
    assert str(result["after"].dtype) == "uint8" and result["classes"] == ["cat", "dog", "emu"]
    assert (result["before"] != result["after"]).any()
    same = preview("pets", {}, count=8, seed=0)  # no transform: the same pixels, up to rounding
    assert abs(same["after"].astype(int) - same["before"].astype(int)).max() <= 1
