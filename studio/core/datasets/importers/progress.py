"""Imports report through the one :class:`studio.core.contracts.progress.Progress`; this names their cancel message."""

from __future__ import annotations

from studio.core.contracts.progress import Cancelled, Progress, as_progress

IMPORT_CANCELLED = "the import was cancelled; nothing was saved"


class ImportCancelled(Cancelled):
    """The person cancelled the import (or pressed Ctrl+C); nothing was written to the cache."""

    def __init__(self, message: str = IMPORT_CANCELLED) -> None:
        super().__init__(message)


def import_progress(value: object = None) -> Progress:
    """The Progress of an import: ``value`` (a Progress, a Report callback or None) whose cancel says
    that nothing was saved."""
    prog = as_progress(value)  # type: ignore[arg-type]
    prog.cancelled_message = IMPORT_CANCELLED
    return prog


__all__ = ["IMPORT_CANCELLED", "ImportCancelled", "Progress", "import_progress"]
