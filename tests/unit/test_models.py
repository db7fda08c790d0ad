"""Models: shapes and parameter counts against hand counts, the ResNet small-image stem, transfer learning
(offline weights, freezing), Ghost Batch Norm, and the model summary with its CLI."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from studio.cli import main as cli_main
from studio.core.errors import ConfigError, DataError
from studio.core.models import MODELS

if TYPE_CHECKING:
    from torch import nn

SHAPES = {"points": (2,), "grey28": (1, 28, 28), "colour32": (3, 32, 32), "words": (8,)}
CASES = [  # (model, params, input kind)
    ("linear_neuron", {}, "points"), ("linear", {}, "grey28"), ("mlp", {"widths": [16, 8]}, "points"),
    ("cnn", {"filters": [4, 4, 4], "dense": 16}, "grey28"), ("lenet5", {}, "grey28"), ("lenet5", {}, "colour32"),
    ("resnet18", {}, "colour32"), ("transfer", {"arch": "shufflenet_v2_x0_5", "pretrained": False}, "grey28"),
    ("lstm_lm", {"embedding": 8, "hidden": 12, "layers": 2}, "words"), ("gru_lm", {"hidden": 12}, "words"),
    ("vit", {"d_model": 16, "depth": 2, "heads": 2}, "grey28"), ("vit", {"patch": 4, "pool": "mean"}, "colour32"),
    ("bert_classifier", {"layers": 1, "d_model": 16, "context": 8}, "words"),
    ("gpt_lm", {"d_model": 8, "heads": 2, "layers": 1, "context": 8}, "words"),
]
PER_POSITION = [("bert_mlm", {"layers": 1, "d_model": 16, "context": 8}, "words")]  # (B, T, vocabulary) outputs
OUTSIDE = {"python", "timm", "hf"}  # a user's file and the libraries' models: tests/unit/test_outside_models.py


def build(name: str, shape: tuple[int, ...], classes: int = 10, **values) -> nn.Module:
    return MODELS.build(name, input_shape=shape, num_classes=classes, **MODELS.resolve(name, values, "model"))


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def test_every_model_is_tested_and_explains_itself():
    assert {name for name, _, _ in CASES + PER_POSITION} | OUTSIDE == set(MODELS.names())
    for entry in MODELS:
        assert entry.description and entry.info, entry.name


@pytest.mark.parametrize("name,values,kind", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_models_map_a_batch_to_one_score_per_class(name, values, kind):
    import torch

    model = build(name, SHAPES[kind], 7, **values)
    x = torch.randint(0, 7, (3, *SHAPES[kind])) if kind == "words" else torch.randn(3, *SHAPES[kind])  # word ids
    out = model(x)
    every_position = "sequence" in MODELS.get(name).tags  # gpt_lm: a prediction at each of the 8 positions
    assert out.shape == ((3, 8, 7) if every_position else (3, 7))
    out.sum().backward()
    assert any(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("name,values,kind", PER_POSITION, ids=[c[0] for c in PER_POSITION])
def test_token_models_score_every_position(name, values, kind):
    import torch

    model = build(name, SHAPES[kind], 7, **values)
    out = model(torch.randint(0, 7, (3, *SHAPES[kind])))
    assert out.shape == (3, SHAPES[kind][0], 7)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def test_linear_neuron_is_w_dot_x_plus_b():
    import torch

    model = build("linear_neuron", (1,), 1)
    assert n_params(model) == 2
    with torch.no_grad():
        model[1].weight.fill_(2.0)
        model[1].bias.fill_(-1.0)
    assert model(torch.tensor([[3.0]])).item() == 5.0


def test_lstm_lm_has_the_hand_counted_parameters():
    # embedding 50·8 + LSTM 4·(12·(8+12) + 2·12) + softmax layer 12·50+50 = 400 + 1,056 + 650
    assert n_params(build("lstm_lm", (6,), 50, embedding=8, hidden=12, layers=1)) == 2106


def test_lenet5_has_the_classic_parameter_count():
    # conv1 6·(25+1) + conv2 16·(6·25+1) + fc 400·120+120 + 120·84+84 + 84·10+10 = 61,706 (28 px with padding 2)
    assert n_params(build("lenet5", (1, 28, 28))) == 61_706
    assert n_params(build("lenet5", (1, 32, 32))) == 61_706  # 32 px: no padding, same shapes
    with pytest.raises(ConfigError, match="12×12"):
        build("lenet5", (1, 8, 8))
    with pytest.raises(ConfigError, match="image"):
        build("lenet5", (2,))


def test_mlp_depth_activation_batch_norm_and_dropout():
    from torch import nn

    model = build("mlp", (4,), 3, widths=[8, 8, 8], activation="gelu", batch_norm=True, dropout=0.5)
    kinds = [type(m) for m in model]
    assert kinds.count(nn.Linear) == 4 and kinds.count(nn.GELU) == 3
    assert kinds.count(nn.BatchNorm1d) == 3 and kinds.count(nn.Dropout) == 3


def test_resnet18_small_image_stem():
    from torch import nn

    from studio.core.estimates.model_summary import summarize

    small = build("resnet18", (3, 32, 32))
    assert small.conv1.kernel_size == (3, 3) and small.conv1.stride == (1, 1)
    assert isinstance(small.maxpool, nn.Identity)
    layers = {layer["name"]: layer for layer in summarize(small, (3, 32, 32))["layers"]}
    assert layers["layer4.1.bn2"]["output_shape"] == [512, 4, 4]  # 32 → 32 → 16 → 8 → 4
    large = build("resnet18", (3, 96, 96))
    assert large.conv1.kernel_size == (7, 7) and isinstance(large.maxpool, nn.MaxPool2d)
    assert n_params(build("resnet18", (3, 224, 224), 1000)) == 11_689_512  # torchvision's ResNet-18
    grey = build("resnet18", (1, 28, 28))
    assert grey.conv1.in_channels == 1


# --- transfer learning ----------------------------------------------------------------------------------
ARCH = "shufflenet_v2_x0_5"  # small (1.4 M parameters) with batch norm and a linear head


def test_transfer_without_cached_weights_that_cannot_download_says_what_to_fetch_and_where(tmp_path, monkeypatch):
    """This machine reaches no download server: the real attempt fails and the sentence names the file and place."""
    from studio.core.models.transfer import weights_path

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    path, url = weights_path(ARCH)
    assert path.parent == tmp_path / "hub" / "checkpoints"
    with pytest.raises(DataError) as err:
        build("transfer", (3, 32, 32), arch=ARCH)
    text = str(err.value)
    assert text.startswith(f"could not download the ImageNet weights for {ARCH} (") and "\n" not in text
    assert str(path) in text and url in text and "pretrained=false" in text
    assert not path.exists()


def _published(tmp_path, state) -> str:
    """``state`` saved as torchvision publishes weights (the name ends with its SHA-256's first 10 hex digits),
    served from a file:// address: a download torch.hub really makes, from this disk."""
    import hashlib

    import torch

    raw = tmp_path / "served.pth"
    torch.save(state, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()[:10]
    served = raw.rename(tmp_path / f"weights-{digest}.pth")
    return served.as_uri()


def test_transfer_downloads_missing_weights_once_into_the_hub_cache(tmp_path, monkeypatch):
    import torch
    import torchvision

    from studio.core.models import transfer

    home = tmp_path / "home"
    monkeypatch.setenv("TORCH_HOME", str(home))
    torch.manual_seed(3)
    state = torchvision.models.get_model(ARCH, weights=None).state_dict()
    url = _published(tmp_path, state)
    cached = home / "hub" / "checkpoints" / url.rsplit("/", 1)[1]
    monkeypatch.setattr(transfer, "weights_path", lambda arch: (cached, url))
    monkeypatch.setattr(torchvision.models, "get_model", _loading_from(cached, torchvision.models.get_model))
    model = build("transfer", (3, 32, 32), arch=ARCH, frozen_epochs=0)
    assert cached.is_file() and torch.equal(model.net.conv1[0].weight, state["conv1.0.weight"])
    (tmp_path / url.rsplit("/", 1)[1]).unlink()  # a second build reads the cache: the served file may go
    build("transfer", (3, 32, 32), arch=ARCH, frozen_epochs=0)


def _loading_from(cached, get_model):
    """torchvision's get_model, with weights="DEFAULT" read from ``cached`` (its own DEFAULT names the real file)."""
    def get(arch, weights=None):
        import torch

        net = get_model(arch, weights=None)
        if weights is not None:
            net.load_state_dict(torch.load(cached, weights_only=True))
        return net
    return get


def test_a_download_that_fails_its_hash_check_is_one_sentence_and_leaves_nothing(tmp_path, monkeypatch):
    from studio.core.models import transfer

    home = tmp_path / "home"
    monkeypatch.setenv("TORCH_HOME", str(home))
    bad = tmp_path / "weights-0123456789.pth"
    bad.write_bytes(b"not the published file")
    cached = home / "hub" / "checkpoints" / bad.name
    monkeypatch.setattr(transfer, "weights_path", lambda arch: (cached, bad.as_uri()))
    with pytest.raises(DataError, match="could not download the ImageNet weights") as err:
        build("transfer", (3, 32, 32), arch=ARCH)
    assert "\n" not in str(err.value) and not cached.exists()
    assert not [p for p in cached.parent.glob("*") if p.is_file()]


def test_transfer_rejects_unknown_or_headless_models():
    with pytest.raises(ConfigError, match="not a torchvision classification model"):
        build("transfer", (3, 32, 32), arch="resnet1800", pretrained=False)
    with pytest.raises(ConfigError, match="no linear classification head"):
        build("transfer", (3, 32, 32), arch="squeezenet1_0", pretrained=False)
    with pytest.raises(ConfigError, match="images"):
        build("transfer", (2,), arch=ARCH, pretrained=False)


@pytest.fixture()
def cached_weights(tmp_path, monkeypatch):
    """A stand-in for the ImageNet weights in a private torch hub cache (found there: nothing is downloaded)."""
    import torch
    import torchvision

    from studio.core.models.transfer import weights_path

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    torch.manual_seed(1)
    state = torchvision.models.get_model(ARCH, weights=None).state_dict()
    path, _ = weights_path(ARCH)
    path.parent.mkdir(parents=True)
    torch.save(state, path)
    return state


def test_transfer_loads_cached_weights_and_freezes_the_base(cached_weights):
    import torch
    from torch import nn

    from studio.core.models.transfer import TransferNet

    model = build("transfer", (1, 28, 28), 5, arch=ARCH, frozen_epochs=2, base_lr_factor=0.01)
    assert isinstance(model, TransferNet) and model.base_frozen
    assert torch.equal(model.net.conv1[0].weight, cached_weights["conv1.0.weight"])  # the cached weights
    assert model.net.fc.out_features == 5  # a new head
    head, base = model.head_parameters(), model.base_parameters()
    assert all(p.requires_grad for p in head) and not any(p.requires_grad for p in base)
    groups = model.optimizer_groups(0.1)
    assert [len(g["params"]) for g in groups] == [len(head), len(base)] and groups[1]["lr"] == pytest.approx(1e-3)
    model.train()
    bns = [m for m in model.net.modules() if isinstance(m, nn.BatchNorm2d)]
    assert bns and not any(m.training for m in bns)  # a frozen base keeps its statistics
    running = bns[0].running_mean.clone()
    model(torch.randn(4, 1, 28, 28)).sum().backward()
    assert torch.equal(bns[0].running_mean, running) and all(p.grad is None for p in base)
    model.freeze_base(False)
    assert all(p.requires_grad for p in model.parameters()) and all(m.training for m in bns)


# --- Ghost Batch Norm -----------------------------------------------------------------------------------
def test_ghost_batch_norm_normalises_each_virtual_batch():
    import torch
    from torch import nn

    from studio.core.models.ghost_batch_norm import GhostBatchNorm1d, GhostBatchNorm2d, use_ghost_batch_norm

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.Flatten(), nn.Linear(3 * 4 * 4, 6),
                          nn.BatchNorm1d(6))
    keys = list(model.state_dict())
    assert use_ghost_batch_norm(model, 4) == 2
    assert isinstance(model[1], GhostBatchNorm2d) and isinstance(model[4], GhostBatchNorm1d)
    assert list(model.state_dict()) == keys  # checkpoints load into the plain model
    x = torch.randn(16, 1, 6, 6)
    feats = model[0](x)
    want = torch.cat([nn.functional.batch_norm(c, None, None, model[1].weight, model[1].bias, training=True)
                      for c in feats.chunk(4)])
    assert torch.allclose(model[1](feats), want, atol=1e-6)
    whole = nn.functional.batch_norm(feats, None, None, model[1].weight, model[1].bias, training=True)
    assert not torch.allclose(model[1](feats), whole, atol=1e-3)  # not the full-batch statistics
    model.eval()
    plain = nn.BatchNorm2d(3)
    plain.load_state_dict(model[1].state_dict())
    plain.eval()
    assert torch.allclose(model[1](feats), plain(feats))  # evaluation: running statistics as usual


# --- summary and CLI ------------------------------------------------------------------------------------
def test_summary_counts_parameters_shapes_and_flops():
    from studio.core.estimates.model_summary import format_summary, summarize

    s = summarize(build("lenet5", (1, 28, 28)), (1, 28, 28))
    assert s["total_params"] == s["trainable_params"] == 61_706
    assert sum(layer["params"] for layer in s["layers"]) == 61_706
    first = s["layers"][0]
    assert first["type"] == "Conv2d" and first["output_shape"] == [6, 28, 28]
    assert first["flops"] == 2 * 6 * 28 * 28 * 25  # a multiply-add per kernel weight per output
    assert s["output_shape"] == [10]
    assert s["flops_per_sample"] == sum(layer["flops"] for layer in s["layers"])
    linear = summarize(build("linear", (1, 28, 28)), (1, 28, 28))
    assert linear["flops_per_sample"] == 2 * 784 * 10
    assert "FLOPs per sample" in format_summary(s)


def test_summary_reports_frozen_parameters(cached_weights):
    from studio.core.estimates.model_summary import format_summary, summarize

    model = build("transfer", (3, 32, 32), 4, arch=ARCH)
    s = summarize(model, (3, 32, 32))
    assert s["trainable_params"] == 1024 * 4 + 4 < s["total_params"]
    assert "frozen" in format_summary(s)


def test_cli_model_summary(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    assert cli_main(["model", "summary", "--set", "model.name=lenet5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "lenet5" and out["total_params"] == 61_706 and out["flops_per_sample"] > 0
    assert cli_main(["model", "summary", "--set", "model.name=mlp", "--set", "model.widths=32"]) == 0
    text = capsys.readouterr().out
    assert "parameters: 25,450" in text  # 784·32+32 + 32·10+10
    assert cli_main(["model", "summary", "--set", "model.name=nope"]) == 2
    assert "unknown model" in capsys.readouterr().err


def test_models_needing_torchvision_say_so_when_it_is_missing(monkeypatch):
    import builtins

    from studio.core.errors import ConfigError
    from studio.core.models.vision import torchvision_module

    real_import = builtins.__import__

    def no_torchvision(name, *args, **kwargs):
        if name == "torchvision":
            raise ImportError("No module named 'torchvision'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torchvision)
    with pytest.raises(ConfigError, match="resnet18 model needs torchvision"):
        torchvision_module("resnet18")
