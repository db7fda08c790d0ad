"""Callbacks declare their stage, what must run before them and their checkpoint state key
(engine/callbacks/base.py); the assembler sorts and checks them (engine/callbacks/assemble.py)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import studio.engine.callbacks as callbacks_package
from studio.core.config import RunConfig
from studio.engine.callbacks.assemble import CallbackDeclarationError, assemble
from studio.engine.callbacks.base import STAGES, Callback
from studio.engine.loop.sinks import NullSink

BASE = ["data.name=moons", "data.n_samples=200", "model.name=mlp", "model.widths=16", "train.epochs=4",
        "train.batch_size=32"]
ALL_ON = ["train.grad_clip=1", "train.grad_noise=0.01", "train.early_stop_patience=2", "train.landscape_every=1",
          "train.sharpness_every=1"]
ALL_OFF = ["train.trajectory_snapshots=false", "train.histogram_every=0", "train.attention_every=0"]
OBSERVE = ["TrajectorySnapshots", "HistogramRecorder", "AttentionSnapshots"]

# The order build_callbacks kept by hand (its comments and the order of its appends) before callbacks declared
# their stage, printed from that code for these configs: the declarations must give the same.
BEFORE = {
    "default": ["Control", "MetricReporter", "Evaluator", *OBSERVE, "Checkpointer"],
    "all_on": ["Control", "MetricReporter", "GradientClipping", "GradientNoise", "Evaluator", "EarlyStopping",
               "LandscapeSnapshot", "SharpnessLogger", *OBSERVE, "Checkpointer"],
    "all_off": ["Control", "MetricReporter", "Evaluator", "Checkpointer"],
    "full_batch": ["Control", "MetricReporter", "Evaluator", "EarlyStopping", "ConvergenceCheck", *OBSERVE,
                   "Checkpointer"],
    "no_run_dir": ["Control", "MetricReporter", "GradientClipping", "GradientNoise", "Evaluator", "EarlyStopping",
                   "SharpnessLogger", "Checkpointer"],
    "fine_tune": ["Control", "MetricReporter", "GradientClipping", "GradientNoise", "TwoStageFineTune", "Evaluator",
                  "EarlyStopping", "ConvergenceCheck", "LandscapeSnapshot", "SharpnessLogger", *OBSERVE,
                  "Checkpointer"],
}
SETS = {"default": [], "all_on": ALL_ON, "all_off": ALL_OFF, "no_run_dir": ALL_ON,
        "full_batch": ["optimizer.name=gd", "optimizer.tolerance=1e-6", "train.early_stop_patience=2"]}


def names(callbacks: list) -> list[str]:
    return [type(cb).__name__ for cb in callbacks]


@pytest.mark.parametrize("case", sorted(SETS))
def test_a_runs_callbacks_keep_the_order_they_had_before_they_declared_it(case, tmp_path):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides([*BASE, *SETS[case]])
    run_dir = "" if case == "no_run_dir" else str(tmp_path)
    trainer = build_trainer(cfg, DistContext(), NullSink(), "test", run_dir, None)
    assert names(trainer.callbacks) == BEFORE[case]


def test_a_fine_tuned_run_keeps_its_order_too(tmp_path):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_callbacks

    cfg = RunConfig().with_overrides([*BASE, *ALL_ON])
    built = build_callbacks(cfg, DistContext(), str(tmp_path), tolerance=1e-6, fine_tune_epochs=1)
    assert names(built) == BEFORE["fine_tune"]


def test_the_order_comes_from_the_declarations_not_from_the_order_given(tmp_path):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.training.worker import build_callbacks

    cfg = RunConfig().with_overrides([*BASE, *ALL_ON])
    ordered = build_callbacks(cfg, DistContext(), str(tmp_path), tolerance=1e-6, fine_tune_epochs=1)
    stages = list(STAGES)
    backwards = sorted(ordered, key=lambda cb: stages.index(cb.stage), reverse=True)  # stable: a stage keeps its order
    assert names(backwards)[:2] == ["Checkpointer", "LandscapeSnapshot"]
    assert names(assemble(backwards)) == BEFORE["fine_tune"]


class Bare(Callback):
    """No stage."""


class Later(Callback):
    stage = "later"


class KeepsState(Callback):
    stage = "observe"

    def state_dict(self) -> dict:
        return {}


class KeyWithoutState(Callback):
    stage = "observe"
    state_key = "orphan"


# The cases with built-in callbacks build them when the test runs: those modules import torch.
def two_noises() -> list[Callback]:
    from studio.engine.callbacks.regularisers import GradientNoise

    return [GradientNoise(0.1, 0), GradientNoise(0.2, 1)]


def early_reader_before_its_evaluator() -> list[Callback]:
    from studio.engine.callbacks.builtin import Evaluator
    from studio.engine.callbacks.stopping import EarlyStopping

    class EarlyReader(EarlyStopping):
        stage = "metrics"  # before the Evaluator whose validation loss it reads

    return [Evaluator(), EarlyReader(2)]


def noise_before_clipping() -> list[Callback]:
    from studio.engine.callbacks.regularisers import GradientClipping, GradientNoise

    return [GradientNoise(0.1, 0), GradientClipping(1.0)]


@pytest.mark.parametrize(("given", "words"), [
    (lambda: [Bare()], "callback Bare declares no stage; a stage is one of control, metrics,"),
    (lambda: [Later()], "callback Later declares the stage 'later'; a stage is one of control,"),
    (lambda: [KeepsState()], "callback KeepsState keeps state (state_dict) but declares no state_key"),
    (lambda: [KeyWithoutState()], "callback KeyWithoutState declares the state_key 'orphan' but has no state_dict"),
    (two_noises,
     "callbacks GradientNoise and GradientNoise would both keep their checkpoint state under 'GradientNoise'"),
    (early_reader_before_its_evaluator,
     "callback EarlyReader must run after Evaluator (runs_after Evaluator), but its stage 'metrics' comes before "
     "'evaluate'"),
    (noise_before_clipping,
     "callback GradientNoise must run after GradientClipping (runs_after GradientClipping), but both are in the "
     "stage 'regularise' and it was given first"),
])
def test_a_broken_declaration_fails_with_one_sentence(given, words):
    with pytest.raises(CallbackDeclarationError) as err:
        assemble(given())
    message = str(err.value)
    assert message.startswith(words) and "\n" not in message


def test_a_callback_named_in_runs_after_may_be_absent():
    from studio.engine.callbacks.regularisers import GradientNoise
    from studio.engine.callbacks.stopping import EarlyStopping

    assert names(assemble([EarlyStopping(2), GradientNoise(0.1, 0)])) == ["GradientNoise", "EarlyStopping"]


def every_callback_class() -> list[type[Callback]]:
    for module in pkgutil.iter_modules(callbacks_package.__path__):
        importlib.import_module(f"{callbacks_package.__name__}.{module.name}")
    found, todo = [], list(Callback.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith(callbacks_package.__name__):
            found.append(cls)
    return found


def test_every_callback_of_the_engine_declares_a_known_stage():
    classes = every_callback_class()
    assert len(classes) >= 14
    assert {cls.__name__: cls.stage for cls in classes if cls.stage not in STAGES} == {}


def test_state_keys_are_the_names_checkpoints_on_disk_already_use():
    """Checkpoints keep callbacks' state under these keys (once the class names): renaming one loses a resumed
    run's early-stopping count, convergence check or gradient-noise generator."""
    from studio.engine.callbacks.stopping import ConvergenceCheck

    stateful = {cls.__name__: cls.state_key for cls in every_callback_class() if hasattr(cls, "state_dict")}
    assert stateful == {"EarlyStopping": "EarlyStopping", "ConvergenceCheck": "ConvergenceCheck",
                        "GradientNoise": "GradientNoise"}
    assert ConvergenceCheck.state_key == "ConvergenceCheck"


class Counter(Callback):
    stage = "observe"
    state_key = "counter-a"

    def __init__(self) -> None:
        self.n = 0

    def state_dict(self) -> dict[str, int]:
        return {"n": self.n}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.n = state["n"]


def test_a_checkpoint_keeps_a_callbacks_state_under_its_state_key(tmp_path):
    from studio.engine.loop.distributed import DistContext
    from studio.engine.loop.resume import restore, training_state
    from studio.engine.training.worker import build_trainer

    cfg = RunConfig().with_overrides([*BASE, "train.early_stop_patience=2"])
    saved = build_trainer(cfg, DistContext(), NullSink(), "test", str(tmp_path), None)
    counter = Counter()
    counter.n = 7
    saved.callbacks.append(counter)
    state = training_state(saved, rng=[])
    assert state["callbacks"] == {"EarlyStopping": {"best": float("inf"), "waited": 0}, "counter-a": {"n": 7}}
    fresh = build_trainer(cfg, DistContext(), NullSink(), "test", str(tmp_path), None)
    fresh.callbacks.append(Counter())
    restore(fresh, {"model": saved.net.state_dict(), "resume": state})
    assert fresh.callbacks[-1].n == 7
