"""Studio's one vocabulary: metric names, data splits, job states, landscape kinds and job kinds.

Each name is spelled once, here, as a :class:`enum.StrEnum` member. A member *is* its string (it compares,
hashes, formats and JSON-encodes as the string), so the database, ``run.json``, landscape files, messages and
``--json`` output hold exactly the strings they always held, and code may still compare against a plain string
it read back. Pure Python: no torch, no Qt.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Split(StrEnum):
    """The data splits a run trains, validates and tests on (the prefix of their metric names)."""

    TRAIN = "train"
    VAL = "val"
    TEST = "test"


SPLITS: Final[tuple[str, ...]] = tuple(s.value for s in Split)  # ("train", "val", "test"), e.g. argparse choices


class Metric(StrEnum):
    """Metric names: what the trainer logs, the store keeps and the curves plot."""

    TRAIN_LOSS = "train/loss"
    TRAIN_ACC = "train/acc"
    TRAIN_EPOCH_LOSS = "train/epoch_loss"
    TRAIN_PERPLEXITY = "train/perplexity"
    VAL_LOSS = "val/loss"
    VAL_ACC = "val/acc"
    VAL_PERPLEXITY = "val/perplexity"
    TEST_LOSS = "test/loss"
    TEST_ACC = "test/acc"
    TEST_PERPLEXITY = "test/perplexity"
    SHARPNESS = "sharpness/top_eig"  # the top Hessian eigenvalue during training (train.sharpness_every)
    LR = "lr"
    EPOCH = "epoch"  # logged at each epoch end: the epoch just finished (1-based)
    THROUGHPUT = "throughput"  # samples per second

    @classmethod
    def loss(cls, split: str) -> Metric:
        """``<split>/loss`` (a landscape's values are keyed by these too)."""
        return cls(f"{Split(split)}/loss")

    @classmethod
    def acc(cls, split: str) -> Metric:
        """``<split>/acc``."""
        return cls(f"{Split(split)}/acc")


class JobState(StrEnum):
    """The states of a job in the GUI and of a run in the store (they share them)."""

    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"
    CANCELLED = "cancelled"  # taken out of the run queue before it started
    INTERRUPTED = "interrupted"  # a run whose processes vanished (the machine rebooted): resumable
    PRUNED = "pruned"  # stopped early with a checkpoint by a hyperparameter search (a bad trial): resumable


class LandscapeKind(StrEnum):
    """What a landscape result is: a 1-D interpolation, a 2-D surface, or a trajectory on the PCA plane."""

    LINE = "1d"
    SURFACE = "2d"
    TRAJECTORY = "trajectory"


LANDSCAPE_KINDS: Final[tuple[str, ...]] = tuple(k.value for k in LandscapeKind)  # ("1d", "2d", "trajectory")


class JobKind(StrEnum):
    """What a background job does (its task's, ``core/contracts/tasks.py``): ``TaskJob(kind=…)``,
    ``Session.running(kind)``."""

    TRAINING = "training"
    LANDSCAPE = "landscape"
    SHARPNESS = "sharpness"
    IMPORT = "import"  # a dataset import or a catalog fetch
    PREVIEW = "preview"  # an augmentation preview
    DEMO = "demo"
    SUMMARY = "summary"  # the model summary
    EVALUATION = "evaluation"  # evaluation, prediction and export of a run
    GENERATE = "generate"  # text generation
    COMPRESS = "compress"  # compression and the sparsity sweep
    SCALE = "scale"  # the data-parallel scaling measurement
    FIT = "fit"  # the scaling-law fit
    CHECK = "check"  # paper checks (engine/tasks/paper_check.py)
    SEARCH = "search"  # a hyperparameter search, the learning-rate range test (engine/tasks/search.py, lr_find.py)
    TASK = "task"  # a TaskJob not given a kind
