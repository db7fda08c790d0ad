"""A run's config: the :class:`RunConfig` dataclasses (``run_config.py``) and what is decided from a config alone,
before any process starts: sweeps over it, whether model and data fit, a BERT run's pretraining run, the global
batch, the data it loads, a Slurm script for it. Above the registries (datasets, models, optim), below runs/.
The face re-exports RunConfig and its parts, which nearly every layer above imports."""

from studio.core.config.run_config import CHOICE_SECTIONS, Choice, RunConfig, TrainConfig, train_params

__all__ = ["CHOICE_SECTIONS", "Choice", "RunConfig", "TrainConfig", "train_params"]
