"""Exceptions that carry a message a person can act on.

They are raised anywhere below the GUI and caught at the edge: the CLI prints the message as one
line and exits 2 (user-fixable) or 3 (the run failed); the GUI shows it in a dialog.
"""


class StudioError(Exception):
    """Base class: ``str(err)`` is a complete sentence for a person."""

    exit_code = 2


class ConfigError(StudioError):
    """A config key has a bad or unknown value."""


class DataError(StudioError):
    """The data cannot be read or does not fit the model."""


class RunFailed(StudioError):
    """A run failed while training (diverged, a worker died)."""

    exit_code = 3


class Diverged(RunFailed):
    """The loss became NaN or infinite."""


class StoreError(StudioError):
    """The run store (STUDIO_HOME) cannot be read or written: a read-only folder, a full disk."""


class DiskFull(RunFailed):
    """A file of a running run could not be written (no space left); the run is failed, not lost."""


class OutputError(StudioError):
    """A file the user asked Studio to write (an export) cannot be written: a read-only folder, a full disk,
    a target that is not a regular file. Nothing is left half-written."""
