"""Optimizers and learning-rate schedules: registries (no torch here) and builders."""

from studio.core.optim.catalog import OPTIMIZERS, SCHEDULES

__all__ = ["OPTIMIZERS", "SCHEDULES"]
