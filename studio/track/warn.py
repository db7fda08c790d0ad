"""One warning per problem: what ``studio.track`` says when it cannot do what a script asked. Training never
stops because of Studio, so every problem is a warning (``StudioTrackWarning``; ``-W error::...`` makes them
errors where a test wants that), said once per kind and name."""

from __future__ import annotations

import threading
import warnings


class StudioTrackWarning(UserWarning):
    """Something a script logged that Studio could not keep as given, or a store it cannot write."""


_said: set[str] = set()
_lock = threading.Lock()


def warn_once(key: str, text: str) -> bool:
    """Warn ``text`` unless the warning ``key`` was already given in this process; whether it warned."""
    with _lock:
        if key in _said:
            return False
        _said.add(key)
    warnings.warn(f"studio.track: {text}", StudioTrackWarning, stacklevel=3)
    return True


def forget() -> None:
    """Say every warning again (tests)."""
    with _lock:
        _said.clear()
