"""The TypedDicts of core/contracts name the keys the code produces, in the order it writes them (a TypedDict is a
plain dict at run time, so only a test keeps the declared keys and the JSON in step). ``__required_keys__`` is
not used for NotRequired keys: under ``from __future__ import annotations`` Python 3.11 cannot see them."""

from __future__ import annotations

import dataclasses

import numpy as np

from studio.core.contracts import evaluation as ev
from studio.core.contracts import jobs, runs, scaling
from studio.core.maths import evaluation
from studio.core.maths.scaling_fit import fit_power_law, power_law
from studio.core.runs.queue import QueueEntry


def keys(typed: type) -> list[str]:
    return list(typed.__annotations__)


def test_power_law_summary_keys_in_order():
    x = np.geomspace(10, 1000, 12)
    summary = fit_power_law(x, power_law(x, 5.0, 0.5, 0.2)).summary(4.0)
    assert list(summary) == keys(scaling.PowerLawSummary)
    assert list(summary["predicted"]) == keys(scaling.Extrapolation)
    assert set(scaling.Fit.__required_keys__) == set(keys(scaling.PowerLawSummary)) | {"runs", "data", "curve"}


def test_evaluation_scores_keys_in_order():
    labels = np.array([0, 0, 1, 1, 2, 2])
    probs = np.array([[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.35, 0.55], [0.05, 0.15, 0.8],
                      [0.3, 0.3, 0.4]])
    scores = evaluation.summarise(probs, labels, ["a", "b", "c"], bins=5, mistakes=3)
    assert list(scores) == keys(ev.EvaluationScores)
    assert list(scores["per_class"][0]) == keys(ev.ClassScores)
    assert list(scores["reliability"]) == keys(ev.ReliabilityBins)
    assert scores["mistakes"] and list(scores["mistakes"][0]) == keys(ev.Mistake)[:-1]  # "input": tabular data
    # the saved result: the run's fields, the scores in their order, then the seconds (and the path once saved)
    result = keys(ev.EvaluationResult)
    assert result[6:6 + len(scores)] == keys(ev.EvaluationScores)
    assert result[-2:] == ["seconds", "path"]


def test_model_summary_and_queue_entry_keys():
    assert set(jobs.SummaryResult.__required_keys__) == set(keys(jobs.ModelSummary)) | {"model", "dataset"}
    entry = QueueEntry("r1", "run", "waiting", 1)
    assert list(entry.to_json()) == keys(runs.QueueEntryJSON)
    assert [f.name for f in dataclasses.fields(QueueEntry)] == [k for k in keys(runs.QueueEntryJSON)]


def test_run_listing_holds_the_summary_keys():
    listing = set(keys(runs.RunListing))
    assert set(keys(runs.RunSummary)) <= listing
    assert {"run_id", "name", "status", "dir", "last_checkpoint"} <= runs.RunListing.__required_keys__
