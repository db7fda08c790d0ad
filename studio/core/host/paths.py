"""Where Studio keeps its files: STUDIO_HOME (runs, database) and STUDIO_DATA_DIR (dataset cache)."""

from __future__ import annotations

import os
from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[3] / "resources"  # studio/core/host/paths.py → the checkout


def studio_home() -> Path:
    """The user data directory (``$STUDIO_HOME`` or platformdirs' user data dir), created on demand."""
    env = os.environ.get("STUDIO_HOME")
    if env:
        home = Path(env)
    else:
        import platformdirs

        home = Path(platformdirs.user_data_dir("studio", appauthor=False))
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        from studio.core.errors import StoreError

        raise StoreError(f"cannot create Studio's folder {home}: {err.strerror}; "
                         "set STUDIO_HOME to a folder you can write") from None
    return home


def data_dir() -> Path:
    """The dataset cache (``$STUDIO_DATA_DIR`` or ``studio_home()/datasets``), created on demand."""
    env = os.environ.get("STUDIO_DATA_DIR")
    path = Path(env) if env else studio_home() / "datasets"
    path.mkdir(parents=True, exist_ok=True)
    return path


def resource(*parts: str) -> Path:
    """A file shipped in resources/ (also inside a frozen bundle, see packaging/)."""
    import sys

    base = Path(getattr(sys, "_MEIPASS", "")) / "resources" if hasattr(sys, "_MEIPASS") else RESOURCES
    return base.joinpath(*parts)
