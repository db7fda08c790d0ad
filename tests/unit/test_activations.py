"""Layer activations of one classified image (issue 22 point 8, DIGITS' view): forward hooks give every layer's
output, feature maps for convolutional layers and vectors for linear ones, downsampled and capped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from studio.core.contracts.activations import MAP_SIZE, ActivationsRequest
from studio.core.errors import ConfigError
from tests.unit.eval_run import shared_run
from tests.unit.landscape_runs import train_run

TINY_CNN = ["data.name=fashion_mnist_small", "model.name=cnn", "model.filters=6,4", "model.dense=16",
            "train.epochs=1", "train.batch_size=1000", "train.trajectory_snapshots=false"]


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Path:
    from studio.core.datasets.bundled import load_fashion_mnist_small

    path = tmp_path_factory.mktemp("act") / "boot.png"
    Image.fromarray(load_fashion_mnist_small().x_test[0, 0].numpy()).save(path)
    return path


def test_an_mlp_gives_the_input_image_and_a_vector_per_layer(image):
    import torch

    from studio.engine.tasks.activations import activations
    from studio.engine.tasks.predict import predict

    _, run_dir = shared_run()  # mlp, widths 64
    result = activations(ActivationsRequest(str(run_dir), str(image)))
    layers = result["layers"]
    assert [(a["name"], a["layer"], a["kind"]) for a in layers] == [
        ("input", "input", "maps"), ("1", "Linear", "vector"), ("2", "ReLU", "vector"), ("3", "Linear", "vector")]
    assert layers[0]["values"].shape == (1, 28, 28)
    assert [a["values"].shape for a in layers[1:]] == [(64,), (64,), (10,)]
    assert layers[2]["values"].min() >= 0  # after the ReLU
    assert all(a["low"] <= a["values"].min() and a["values"].max() <= a["high"] for a in layers)
    same = predict(run_dir, [image], top=1)["predictions"][0]
    assert result["predicted"] == same["predicted"] and result["probability"] == pytest.approx(same["probability"])
    logits = torch.from_numpy(layers[-1]["values"])
    assert float(torch.softmax(logits, 0).max()) == pytest.approx(result["probability"], rel=1e-5)


def test_a_cnn_gives_feature_maps_for_convolutions_and_caps_them(tmp_path, image):
    from studio.engine.tasks.activations import activations

    run_dir = train_run(tmp_path, TINY_CNN)
    result = activations(ActivationsRequest(str(run_dir), str(image), max_maps=4))
    by = {a["name"]: a for a in result["layers"]}
    assert by["0"]["layer"] == "Conv2d" and by["0"]["kind"] == "maps" and by["0"]["shape"] == [6, 28, 28]
    assert by["0"]["values"].shape == (4, 28, 28)  # the first 4 of 6 maps, 28 ≤ MAP_SIZE: not pooled
    assert by["3"]["layer"] == "MaxPool2d" and by["3"]["values"].shape == (4, 14, 14)
    assert by["10"]["layer"] == "Linear" and by["10"]["values"].shape == (16,)
    assert "7" not in by and "9" not in by  # Dropout and Flatten show nothing new
    assert [a["name"] for a in result["layers"]][-1] == "13"


def test_large_maps_are_pooled_down():
    import torch

    from studio.engine.tasks.activations import layer_outputs

    net = torch.nn.Sequential(torch.nn.Conv2d(3, 2, 1), torch.nn.Flatten(), torch.nn.Linear(2 * 96 * 96, 3))
    x = torch.randn(1, 3, 96, 96)
    _, found = layer_outputs(net, x, max_maps=8)
    assert found[0]["shape"] == [2, 96, 96] and found[0]["values"].shape == (2, MAP_SIZE, MAP_SIZE)
    full = net[0](x)[0].detach().numpy()
    assert np.allclose(found[0]["values"][1, 0, 0], full[1, :3, :3].mean(), atol=1e-5)  # 3×3 blocks averaged


def test_the_request_states_its_limits():
    with pytest.raises(ConfigError, match="max_maps"):
        ActivationsRequest("run", "x.png", max_maps=0).validate()
    with pytest.raises(ConfigError, match="one image"):
        ActivationsRequest("run", "").validate()
