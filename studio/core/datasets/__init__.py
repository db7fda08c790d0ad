"""Datasets: the registry (no torch here) and the loaders (imported by workers only)."""

from studio.core.datasets.catalog import DATASETS

__all__ = ["DATASETS"]
