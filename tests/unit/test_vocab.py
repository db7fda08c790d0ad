"""core/vocab.py: one spelling per name, and members that are their strings (stored values stay identical)."""

import json

import pytest

from studio.core.contracts import progress as jobs
from studio.core.vocab import SPLITS, JobKind, JobState, LandscapeKind, Metric, Split


def test_members_are_their_strings():
    assert Metric.TRAIN_LOSS == "train/loss" and {"train/loss": 1}[Metric.TRAIN_LOSS] == 1
    assert f"{Metric.SHARPNESS}" == str(Metric.SHARPNESS) == "sharpness/top_eig"
    assert json.dumps({Metric.VAL_ACC: JobState.FINISHED}) == '{"val/acc": "finished"}'
    assert SPLITS == ("train", "val", "test") and all(type(s) is str for s in SPLITS)
    assert tuple(LandscapeKind) == ("1d", "2d", "trajectory")
    assert JobKind.TRAINING == "training" and Split("val") is Split.VAL


def test_metric_of_a_split():
    assert Metric.loss("test") is Metric.TEST_LOSS and Metric.acc(Split.TRAIN) is Metric.TRAIN_ACC
    with pytest.raises(ValueError):
        Metric.loss("holdout")


def test_job_state_constants_are_the_enum():
    assert jobs.STATES == tuple(JobState) == ("queued", "running", "paused", "finished", "failed", "stopped",
                                              "cancelled", "interrupted", "pruned")
    assert jobs.FINISHED is JobState.FINISHED
    assert jobs.ENDED == ("finished", "failed", "stopped", "cancelled", "pruned")


def test_every_spelling_is_unique():
    for enum in (Metric, Split, JobState, LandscapeKind, JobKind):
        names = list(enum.__members__)  # an alias (a second name for one value) is here, not in iteration
        assert len(names) == len(list(enum)), enum
