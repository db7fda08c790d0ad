"""File > Export metrics… writes the selected runs' curves with ``core/run_export.py`` (shared with
``studio export``)."""

from studio.core.run_export import COLUMNS, export_metrics_csv

__all__ = ["COLUMNS", "export_metrics_csv"]
