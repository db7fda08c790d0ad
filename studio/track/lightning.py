"""``StudioLogger``: a Lightning logger that records into Studio's run store (``studio.track``).

::

    from studio.track.lightning import StudioLogger
    trainer = lightning.Trainer(logger=StudioLogger(name="resnet", tags=["baseline"]))

Works with ``lightning`` (``lightning.pytorch``) or the older ``pytorch_lightning``, whichever is installed; only
rank 0 records (Lightning's ``rank_zero_only``). The module's hyperparameters become the run's settings; a run
that ends with an exception is failed. Import this module only where Lightning is installed.
"""

from __future__ import annotations

import importlib
from argparse import Namespace
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lightning.pytorch.loggers.logger import Logger, rank_zero_experiment
    from lightning.pytorch.utilities import rank_zero_only
else:
    try:  # lightning, else the older package name
        _pl = importlib.import_module("lightning.pytorch")
    except ImportError:  # pragma: no cover
        _pl = importlib.import_module("pytorch_lightning")
    Logger = _pl.loggers.logger.Logger
    rank_zero_experiment = _pl.loggers.logger.rank_zero_experiment
    rank_zero_only = _pl.utilities.rank_zero_only

import studio.track
from studio.core.vocab import JobState
from studio.track.run import Run


class StudioLogger(Logger):
    """Lightning's ``Logger`` over a ``studio.track`` run (made on first use, on rank 0)."""

    def __init__(self, name: str = "", config: Mapping[str, Any] | None = None, tags: Iterable[str] = (), *,
                 home: str | Path | None = None, flush_s: float = 0.5) -> None:
        super().__init__()
        self._name, self._config, self._tags = name or "lightning", dict(config or {}), list(tags)
        self._home, self._flush_s = home, flush_s
        self._run: Run | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> str:
        return self.experiment.id if self._run is not None else ""

    @property
    @rank_zero_experiment
    def experiment(self) -> Run:
        """The ``studio.track`` run (its ``id``, ``dir``; ``save_model``)."""
        if self._run is None:
            self._run = studio.track.init(self._name, self._config, self._tags, home=self._home, rank=0,
                                          flush_s=self._flush_s)
        return self._run

    @rank_zero_only
    def log_hyperparams(self, params: dict[str, Any] | Namespace, *args: Any, **kwargs: Any) -> None:
        values = vars(params) if isinstance(params, Namespace) else dict(params or {})
        self.experiment.set_config(values)

    @rank_zero_only
    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.experiment.log(dict(metrics), step=step)

    @rank_zero_only
    def save(self) -> None:
        if self._run is not None:
            self._run.flush()

    @rank_zero_only
    def finalize(self, status: str) -> None:
        if self._run is None:
            return
        if status == "failed":
            self._run.finish(JobState.FAILED.value, "the Lightning run failed")
        else:
            self._run.finish()
