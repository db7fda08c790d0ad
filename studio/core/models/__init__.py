"""Models: the registry (no torch here) and the builders (imported by workers only)."""

from studio.core.models.catalog import MODELS

__all__ = ["MODELS"]
