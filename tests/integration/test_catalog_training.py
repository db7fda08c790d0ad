"""Every model, optimizer and schedule in the registries trains one short epoch.

Most runs go through the worker's own ``build_trainer`` in this process (the same code a rank runs,
from the same ``--set`` overrides), on small data so the loop stays quick; a few go through the real
``studio train`` command line in a subprocess: Newton, the bundled dataset with Lookahead and one-cycle,
a divergent run, and a transfer model whose weights are missing.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from studio.core.config import RunConfig
from studio.core.models import MODELS
from studio.core.models.catalog import builder_extras
from studio.core.optim import OPTIMIZERS, SCHEDULES
from studio.engine.loop.sinks import NullSink

if TYPE_CHECKING:
    from studio.core.datasets.arrays import ArrayData

POINTS = ["data.name=moons", "data.n_samples=200"]
TEXT = ["data.name=fortunes", "data.vocab_size=200", "data.max_len=4", "model.embedding=8", "model.hidden=16",
        "train.batch_size=512"]
MODEL_RUNS = {  # model → the overrides that give it suitable data
    "linear_neuron": ["data.name=noisy_line"],
    "linear": POINTS,
    "mlp": [*POINTS, "model.widths=32,16", "model.batch_norm=true", "model.dropout=0.1"],
    "cnn": ["model.filters=8,8,8", "model.dense=32"],
    "lenet5": [],
    "resnet18": [],
    "transfer": ["model.arch=shufflenet_v2_x0_5", "model.pretrained=false"],
    "lstm_lm": [*TEXT, "model.layers=2"],
    "gru_lm": TEXT,
    "vit": ["model.d_model=16", "model.depth=2", "model.heads=2"],
    "gpt_lm": ["data.name=fortunes", "data.tokenizer=char", "model.d_model=16", "model.heads=2", "model.layers=1",
               "model.context=32"],
    "bert_mlm": ["data.name=masked_lm", "data.copies=1", "data.max_len=8", "model.layers=1", "model.d_model=16",
                 "model.heads=2", "model.context=9"],
    "bert_classifier": ["data.name=fortune_sources", "data.max_len=8", "model.layers=1", "model.d_model=16",
                        "model.heads=2", "model.context=9"],
}
IMAGE_MODELS = {"cnn", "lenet5", "resnet18", "transfer", "vit"}


@pytest.fixture(scope="module")
def fashion_subset() -> ArrayData:
    """64 training and 16 test images of the bundled dataset, shrunk to 14×14 so ResNet-18 takes seconds."""
    import torch

    from studio.core.datasets.arrays import ArrayData
    from studio.core.datasets.bundled import load_fashion_mnist_small

    full = load_fashion_mnist_small()

    def shrink(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.avg_pool2d(x.float(), 2).round().to(torch.uint8)

    return ArrayData(shrink(full.x_train[:64]), full.y_train[:64], shrink(full.x_test[:16]), full.y_test[:16],
                     full.classes)


def train_one_epoch(tmp_path, sets: list[str], data: ArrayData | None = None):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides(["train.epochs=1", "train.batch_size=32", "train.metric_interval=2", *sets])
    trainer = build_trainer(cfg, DistContext(), NullSink(), "test", str(tmp_path), None, data=data)
    summary = trainer.fit()
    assert not trainer.should_stop and trainer.epochs_done == 1
    assert trainer.step == trainer.total_steps > 0
    assert math.isfinite(summary["train_loss"]) and math.isfinite(summary["test_loss"])
    return cfg, trainer


OWN_CODE = ("python", "timm", "hf")  # models of the user's own code: trained by test_own_code_models_train_an_epoch


def test_the_loops_cover_every_registry_entry():
    assert set(MODEL_RUNS) | set(OWN_CODE) == set(MODELS.names())


@pytest.mark.slow  # ~15–40 s each (transformers' import)
@pytest.mark.parametrize("model", OWN_CODE)
def test_own_code_models_train_an_epoch(model, tmp_path):
    """A model from a Python file, a timm architecture (no weights downloaded) and a tiny Hugging Face model
    saved to a folder: one epoch through the same loop."""
    from tests.own_code_files import hf_model, timm_model, user_model, write_tiny_hf, write_user_files

    files = tmp_path / "code"
    files.mkdir()
    sets = {"python": lambda: user_model(*write_user_files(files)),
            "timm": lambda: timm_model(write_user_files(files)[1]),
            "hf": lambda: [*hf_model(write_tiny_hf(files / "hf")), "data.max_len=8"]}[model]()
    train_one_epoch(tmp_path / "run", sets)


@pytest.mark.parametrize("model", list(MODEL_RUNS))
def test_every_model_trains_an_epoch(model, tmp_path, fashion_subset):
    import torch

    from studio.core.config.data_loading import load_dataset

    data = fashion_subset if model in IMAGE_MODELS else None
    cfg, _ = train_one_epoch(tmp_path, [f"model.name={model}", *MODEL_RUNS[model]], data)
    # the final checkpoint loads, weights only, into a freshly built model
    ckpt = torch.load(tmp_path / "checkpoints" / "final.pt", weights_only=True)
    data = data or load_dataset(cfg.data, seed=cfg.train.seed, model=cfg.model)
    fresh = MODELS.build(cfg.model.name, input_shape=data.input_shape, num_classes=data.num_classes,
                         **cfg.model.params, **builder_extras(cfg.model.name, data.meta))
    fresh.load_state_dict(ckpt["model"])


@pytest.mark.parametrize("optimizer", OPTIMIZERS.names())
def test_every_optimizer_trains_an_epoch(optimizer, tmp_path):
    _, trainer = train_one_epoch(tmp_path, [*POINTS, "model.name=mlp", "model.widths=16",
                                            f"optimizer.name={optimizer}"])
    entry = OPTIMIZERS.get(optimizer)
    if "full_batch" in entry.tags:
        assert trainer.step == 1 and trainer.batch == len(trainer.train_data)


@pytest.mark.parametrize("schedule", SCHEDULES.names())
def test_every_schedule_trains_an_epoch(schedule, tmp_path):
    _, trainer = train_one_epoch(tmp_path, [*POINTS, "model.name=mlp", "model.widths=16", "optimizer.name=sgd",
                                            f"schedule.name={schedule}"])
    factor = SCHEDULES.build(schedule, total_steps=trainer.total_steps, steps_per_epoch=trainer.total_steps,
                             **trainer.cfg.schedule.params)
    assert trainer.lr() == pytest.approx(trainer.cfg.optimizer.params["lr"] * factor(trainer.step))


# --- the real command line ------------------------------------------------------------------------------
def studio_train(tmp_path, *sets: str) -> tuple[int, dict, str]:
    env = dict(os.environ, STUDIO_HOME=str(tmp_path / "home"), TORCH_HOME=str(tmp_path / "torch"))
    args = [sys.executable, "-m", "studio", "train", "--json", "--quiet"]
    for s in sets:
        args += ["--set", s]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_cli_trains_newton_on_points(tmp_path):
    code, result, err = studio_train(tmp_path, *POINTS, "model.name=linear", "optimizer.name=newton",
                                     "train.epochs=3")
    assert code == 0, err
    assert result["status"] == "finished" and result["steps"] == 3 and result["test_acc"] > 0.75


def test_cli_trains_the_bundled_dataset_with_lookahead_and_one_cycle(tmp_path):
    code, result, err = studio_train(tmp_path, "model.name=linear", "optimizer.name=lookahead",
                                     "optimizer.inner=sgd", "optimizer.lr=0.1",
                                     "optimizer.inner_options=momentum=0.9", "schedule.name=one_cycle",
                                     "train.epochs=1")
    assert code == 0, err
    assert result["status"] == "finished" and result["test_acc"] > 0.6  # 10 classes: chance is 0.1


def test_cli_divergent_run_fails_naming_step_and_learning_rate(tmp_path):
    code, result, _ = studio_train(tmp_path, "data.name=noisy_line", "model.name=linear_neuron",
                                   "optimizer.name=sgd", "optimizer.lr=100", "train.batch_size=8",
                                   "train.epochs=20", "train.metric_interval=5")
    assert code == 3 and result["status"] == "failed"
    message = result["error"]
    assert "at step" in message and "learning rate 100" in message and "lower learning rate" in message


def test_cli_transfer_without_weights_is_a_user_error(tmp_path):
    code, result, _ = studio_train(tmp_path, "model.name=transfer", "model.arch=resnet18", "train.epochs=1")
    assert code == 2 and result["status"] == "failed"
    assert "resnet18-f37072fd.pth" in result["error"] and "pretrained=false" in result["error"]
