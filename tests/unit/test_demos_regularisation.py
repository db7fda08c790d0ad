"""Overfitting and regularisation: the variants train side by side from the same start."""

import pytest

from studio.core.errors import ConfigError


def test_the_unregularised_model_overfits_and_augmentation_narrows_the_gap():
    from studio.core.demos import regularisation

    frames = []
    result = regularisation.run(variants="none,augmentation", train_samples=300, val_samples=300, epochs=20,
                                batch_size=32, widths="128", threads=1, emit=frames.append)
    v = result["summary"]["variants"]
    assert v["none"]["train_acc"] > 0.97  # memorised 300 images
    assert v["none"]["gap"] > 0.1
    assert v["augmentation"]["gap"] < v["none"]["gap"]
    assert [f["epoch"] for f in frames] == list(range(21))
    # same initial weights: identical epoch-0 measurements
    assert frames[0]["rows"]["none"] == frames[0]["rows"]["augmentation"]


def test_unknown_variant_is_refused():
    from studio.core.demos import regularisation

    with pytest.raises(ConfigError, match="variants"):
        regularisation.run(variants="none,magic", epochs=1)
