"""File > Export metrics… writes the selected runs' curves with ``core/runs/export.py`` (shared with
``studio export``)."""

from studio.core.runs.export import COLUMNS, export_metrics_csv

__all__ = ["COLUMNS", "export_metrics_csv"]
