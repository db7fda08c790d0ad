"""Importing people's datasets: folders of images, archives, CSV, NumPy and IDX files.

``pipeline.import_path(path, options, progress)`` detects what a path holds, reads it into uint8 arrays, checks it
and stores it once in the cache (``studio.core.datasets.cache``), where the dataset registry finds it. Bad input
raises DataError with a sentence; nothing half-written is left. This face imports nothing: a reader module
(csv_table, result, …) can be imported without the whole pipeline and the registry behind it.
"""
