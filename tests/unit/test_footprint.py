"""Issue 39.4: the memory a run needs at the least, from its config alone (core/estimates/footprint.py), checked
against the real models (the formula gives their exact parameter count) and the memory view's measured activations
(the floor is below them), and the refusal of what cannot fit, before any run is created."""

from __future__ import annotations

import math

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.estimates import footprint
from tests.conftest import run_cli

CASES = [
    ("mlp", {"widths": [64, 32], "batch_norm": True}, (1, 28, 28), 10, 0),
    ("mlp", {"widths": [7]}, (2,), 2, 0),
    ("linear", {}, (3, 8, 8), 5, 0),
    ("linear_neuron", {"bias": False}, (4,), 1, 0),
    ("lstm_lm", {"embedding": 16, "hidden": 24, "layers": 2}, (12,), 300, 300),
    ("gru_lm", {"embedding": 8, "hidden": 12, "layers": 1}, (12,), 200, 200),
    ("gpt_lm", {"layers": 2, "d_model": 32, "heads": 4, "context": 16}, (16,), 150, 150),
    ("gpt_lm", {"layers": 1, "d_model": 16, "heads": 2, "context": 8, "tie_weights": False}, (8,), 90, 90),
    ("bert_mlm", {"layers": 2, "d_model": 32, "heads": 2, "context": 12}, (9,), 120, 120),
    ("bert_classifier", {"layers": 1, "d_model": 16, "heads": 2, "context": 12, "vocab_size": 140}, (9,), 4, 140),
    ("vit", {"patch": 7, "d_model": 32, "depth": 2, "heads": 4}, (1, 28, 28), 10, 0),
    ("vit", {"patch": 4, "d_model": 16, "depth": 1, "heads": 2, "pool": "mean"}, (3, 32, 32), 100, 0),
]


@pytest.mark.parametrize(("model", "params", "shape", "outputs", "vocab"), CASES)
def test_the_formula_is_the_built_models_parameter_count(model, params, shape, outputs, vocab):
    from studio.core.models import MODELS

    net = MODELS.build(model, input_shape=shape, num_classes=outputs, **params)
    real = sum(p.numel() for p in {id(p): p for p in net.parameters()}.values())  # a tied weight counts once
    full = {**MODELS.get(model).defaults(), **params}
    image = shape if len(shape) == 3 else None
    assert footprint.parameters(model, full, math.prod(shape), outputs, vocab=vocab, image=image) == real
    if vocab:  # without the vocabulary (the launcher does not know it): a floor
        assert footprint.parameters(model, full, math.prod(shape), outputs, image=image) < real


@pytest.mark.parametrize("overrides", [
    ["model.widths=[256,128]", "train.batch_size=64"],
    ["data.name=fortunes", "model.name=gpt_lm", "model.layers=2", "model.d_model=64", "model.context=16",
     "train.batch_size=8"],
])
def test_the_estimate_is_a_floor_of_what_the_memory_view_measures(overrides):
    from studio.core.estimates.memory import memory_of_config

    cfg = RunConfig().with_overrides(overrides)
    floor = footprint.estimate(cfg)
    view = {row["item"].split(" ")[0]: row for row in memory_of_config(cfg)["rows"]}
    assert floor is not None
    assert floor.weights <= view["parameters"]["measured"]
    assert floor.optimizer <= view["optimizer"]["measured"]
    assert 0 < floor.activations <= view["activations"]["measured"]


def test_a_model_too_big_for_the_memory_is_refused_in_one_sentence(monkeypatch):
    cfg = RunConfig().with_overrides(["data.name=fortunes", "model.name=gpt_lm", "model.layers=48",
                                      "model.d_model=4096", "model.heads=32"])
    need = footprint.estimate(cfg)
    assert need is not None and need.weights > 36 * 2**30  # the 39 GB of weights (9.7 billion parameters)
    monkeypatch.setattr(footprint.memory, "available_ram", lambda: 23 * 2**30)
    with pytest.raises(ConfigError) as refused:
        footprint.check_fits(cfg)
    text = str(refused.value)
    # 48 × (12·4096² + 13·4096) + 2·4096 + 24·4096 = 9,666,338,816 parameters × 4 bytes; Adam keeps two moments
    assert need.parameters == 9_666_338_816
    assert "needs at least" in text and "36.01 GiB of weights (9.7 billion parameters)" in text, text
    assert "as much again of gradients, 72.02 GiB of optimizer state" in text
    assert "more than the 23.00 GiB available on this machine" in text and "\n" not in text
    monkeypatch.setattr(footprint.memory, "available_ram", lambda: 2**40)  # a machine with 1 TiB: it fits
    assert footprint.check_fits(cfg) is need or footprint.check_fits(cfg) == need
    assert footprint.check_fits(RunConfig()) is not None  # the default MLP fits anywhere
    assert footprint.check_fits(RunConfig().with_overrides(["model.name=resnet18"])) is None  # not sized here


def test_two_processes_share_the_machine_and_a_gpu_has_its_own(monkeypatch):
    cfg = RunConfig().with_overrides(["model.widths=[16384,16384,16384]", "optimizer.name=adam"])
    need = footprint.estimate(cfg).total
    monkeypatch.setattr(footprint.memory, "available_ram", lambda: int(need * 1.5))
    footprint.check_fits(cfg)
    monkeypatch.setattr(footprint.os, "cpu_count", lambda: 8)
    two = cfg.with_overrides(["hardware.processes=2"])
    with pytest.raises(ConfigError, match="available to each of 2 processes"):
        footprint.check_fits(two)
    monkeypatch.setattr(footprint.memory, "gpu_free", lambda: [need // 2, need * 2])
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    footprint.check_fits(cfg.with_overrides(["hardware.device=cuda"]))  # the visible GPU is the big one
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with pytest.raises(ConfigError, match="free on the GPU"):
        footprint.check_fits(cfg.with_overrides(["hardware.device=cuda"]))


def test_studio_train_refuses_a_39_gb_model_before_any_run(studio_home):
    from studio.core.host.memory import available_ram

    args = ["--set", "data.name=fortunes", "--set", "model.name=gpt_lm", "--set", "model.layers=48", "--set",
            "model.d_model=4096", "--set", "model.heads=32"]
    need = footprint.estimate(RunConfig().with_overrides([a for a in args if a != "--set"])).total
    if (available_ram() or 0) > need:
        pytest.skip("this machine has the memory for it")
    proc = run_cli("train", *args, timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("studio: error: this gpt_lm needs at least") and "GiB available" in lines[0]
    assert not (studio_home / "runs").exists() or not any((studio_home / "runs").iterdir())


def test_the_labs_refuse_an_mlp_that_cannot_fit_before_building_it(monkeypatch):
    """The Parallelism lab, the asynchronous-SGD study and the demos take MLP widths as text: 100,000 × 100,000 is
    ten billion parameters (80 GB with gradients), refused in one sentence, not allocated until the kernel kills it."""
    from studio.core.contracts.async_sgd import AsyncRequest
    from studio.core.contracts.parallel import ParallelRequest
    from studio.core.demos.common import parse_ints
    from studio.engine.async_sgd.launch import check as check_async
    from studio.engine.parallel.launch import validate as check_parallel

    monkeypatch.setattr(footprint.memory, "available_ram", lambda: 8 * 2**30)
    wide = (100_000, 100_000)
    for refuse, what in ((lambda: parse_ints("100000,100000", "widths"), "an MLP"),
                         (lambda: check_async(AsyncRequest(widths=wide)), "the study's MLP"),
                         (lambda: check_parallel(ParallelRequest(widths=wide, modes=("single",))), "the lab's MLP")):
        with pytest.raises(ConfigError, match=f"^{what} of widths 100000,100000 needs at least .* more than the "
                                              "8.00 GiB available on this machine"):
            refuse()
    assert parse_ints("128,128", "widths") == [128, 128] and parse_ints("100000", "sizes") == [100_000]
