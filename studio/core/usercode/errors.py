"""The one exception of user code: a sentence about the user's own file (exit code 2: fix your input)."""

from __future__ import annotations

from studio.core.errors import ConfigError


class UserCodeError(ConfigError):
    """The user's model or dataset file cannot be used as it is; ``str(err)`` says where and why."""
