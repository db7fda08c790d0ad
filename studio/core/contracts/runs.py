"""What a training run reports and how the run store lists it: the run summary (the trainer's final numbers,
stored in the database and sent in a finished run's status message), a run as ``studio list --json`` gives
it, a queue entry and the compare table. Torch-free and Qt-free."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class RunSummary(TypedDict, total=False):
    """A run's final numbers (``engine/callbacks/builtin.py``); a run that stopped early has some of them.
    A metric the run could not measure is NaN (no validation split, no accuracy for regression)."""

    train_loss: float
    val_loss: float
    val_acc: float
    val_perplexity: float  # next-word runs
    epochs: int
    steps: int
    test_loss: float
    test_acc: float
    test_perplexity: float
    world_size: int
    device: str  # "cpu", "cuda", …
    seconds: float
    n_params_non_embedding: int  # Kaplan et al.'s N: parameters outside the embeddings


class RunListing(RunSummary):
    """``RunInfo.to_json``: a run of the store, then its summary's keys."""

    run_id: str
    name: str
    status: str  # a JobState
    created: float
    updated: float
    dir: str
    message: str
    last_checkpoint: str | None
    tags: list[str]  # a person's tags (RunStore.add_tags)


class TrainReport(TypedDict):
    """``studio train --json``: the run, its final numbers (None: not reached; the summary's own keys follow,
    e.g. ``test_loss``, perplexities) and its folder; ``error`` when it failed."""

    run_id: str
    status: str
    epochs: int
    steps: int
    train_loss: float | None
    val_loss: float | None
    val_acc: float | None
    test_acc: float | None
    world_size: int
    device: str
    seconds: float | None
    test_loss: NotRequired[float]
    val_perplexity: NotRequired[float]
    test_perplexity: NotRequired[float]
    n_params_non_embedding: NotRequired[int]
    run_dir: str
    error: NotRequired[str]


class QueueEntryJSON(TypedDict):
    """``QueueEntry.to_json``: a queued run (``studio queue list --json``)."""

    run_id: str
    name: str
    state: str  # waiting, running, done (core/runs/queue.py)
    position: int  # 1, 2, … among waiting runs; 0 when running or over
    devices: list[str]
    status: str
    added: float
    started: float | None
    ended: float | None


class CompareRow(TypedDict):
    """One run of the compare table: the value of every differing setting and its final metrics (None: missing)."""

    run_id: str
    name: str
    status: str
    settings: dict[str, Any]  # setting → value (any config value; MISSING where the run lacks it)
    metrics: dict[str, float | int | None]


class SettingDiff(TypedDict):
    """One setting of two runs side by side (``studio compare --diff``)."""

    key: str
    left: Any
    right: Any
    same: bool


class MetricSpread(TypedDict):
    """A final number over a seed group's runs (``core/maths/bands.Spread``)."""

    mean: float | None
    std: float | None
    n: int
    ci95: float | None


class CompareGroup(TypedDict):
    """Compared runs that differ only in the seed: the group's name, its runs and seeds, and each final metric's
    mean ± std over them."""

    id: str
    name: str
    run_ids: list[str]
    seeds: list[Any]
    n: int
    metrics: dict[str, MetricSpread]


class CompareTable(TypedDict):
    """``core/runs/compare.compare_runs``: the settings that differ, the metrics, one row per run, the seed groups
    among the runs; ``studio compare --diff`` adds the two runs' settings side by side, ``--record`` the file
    written."""

    differing: list[str]
    metric_names: list[str]
    runs: list[CompareRow]
    groups: list[CompareGroup]
    diff: NotRequired[list[SettingDiff]]
    recorded: NotRequired[str]
