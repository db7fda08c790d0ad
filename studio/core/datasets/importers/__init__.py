"""Importing people's datasets: folders of images, archives, CSV, NumPy and IDX files.

``import_path(path, options, progress)`` detects what a path holds, reads it into uint8 arrays,
checks it and stores it once in the cache (``studio.core.datasets.cache``), where the dataset
registry finds it. Bad input raises DataError with a sentence; nothing half-written is left.
"""

from studio.core.datasets.importers.options import ChoiceNeeded, ImportOptions
from studio.core.datasets.importers.pipeline import import_path
from studio.core.datasets.importers.progress import ImportCancelled, Progress

__all__ = ["ChoiceNeeded", "ImportCancelled", "ImportOptions", "Progress", "import_path"]
