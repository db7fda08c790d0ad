"""``--record FILE [--size WxH] [--style projector|screen]``: what the commands that record for slides share
(``studio demo``, ``compare``, ``export``, ``landscape``). The target is checked before any computing (a known
ending, a folder that exists and can be written, a size of 16 to 4096 pixels a side, the encoder for an MP4): one
sentence, exit 2. The frames are drawn off screen by the GUI's own reels (``gui/widgets/reel.py``), imported here
inside the command, never when the command line starts."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studio.core.errors import ConfigError, StudioError

FORMATS = "FILE.mp4 or FILE.gif ({what}, for slides), FILE.png or FILE.svg (the last frame)"
SIZE_HELP = "the size of a video or still, e.g. 1920x1080 (default 1280x720)"


def add_record_args(p: argparse.ArgumentParser, record_help: str, style: bool = True) -> None:
    """``--record FILE`` (``record_help``: what it writes, see ``FORMATS``), ``--size WxH`` and (with ``style``)
    ``--style``."""
    p.add_argument("--record", metavar="FILE", help=record_help)
    p.add_argument("--size", metavar="WxH", help=SIZE_HELP)
    if style:
        p.add_argument("--style", choices=("projector", "screen"), default="projector",
                       help="projector: large type and thick lines (default); screen: as the window draws it")


def check_recording(record: str | None, size: str | None) -> tuple[int, int]:
    """The recording's size, before any computing; a StudioError in one sentence for a target ``--record`` cannot
    write (a wrong ending, a missing or read-only folder, an absurd size, no MP4 encoder), or ``--size`` alone."""
    if not record:
        if size:
            raise ConfigError("--size goes with --record FILE")
        return (0, 0)
    from studio.gui.widgets.movie_file import MOVIES, MovieError, check_target, encoders_missing, why_failed
    from studio.gui.widgets.reel import SIZES, parse_size

    path = check_target(record)
    if path.suffix.lower() in MOVIES and encoders_missing(path.suffix):
        raise ConfigError(encoders_missing(path.suffix))
    chosen = parse_size(size) if size else SIZES[0]
    probe = path.with_name(f".{path.name}.{os.getpid()}.probe")  # not the .part the writer uses
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise MovieError(why_failed(err, path)) from None
    return chosen


def save_reel(make_reel: Callable[[], Any], path: str | Path, size: tuple[int, int]) -> str:
    """Draw ``make_reel()``'s frames off screen and write them to ``path``; the path written (a StudioError in one
    sentence when it cannot be, with nothing left behind)."""
    from studio.gui.plots.curves_png import ensure_app
    from studio.gui.widgets.reel import record

    app = ensure_app()  # noqa: F841 - kept alive while drawing
    reel = make_reel()
    try:
        return str(record(reel, path, size).path)
    finally:
        _let_go(reel)


def record_into(out: Any, make_reel: Callable[[], Any], path: str, size: tuple[int, int]) -> StudioError | None:
    """Record, naming the file in ``out["recorded"]`` (a command's report: a TypedDict with that key); the error to
    raise once ``out`` is printed (what was computed is reported all the same)."""
    try:
        out["recorded"] = save_reel(make_reel, path, size)
    except StudioError as err:
        return err
    return None


def curves_reel(store: Any, run_ids: list[str], projector: bool) -> Any:
    """The runs' curves growing step by step, named as the run list names them: the reel "Record the curves…"
    records (``gui/plots/curves_reel.py``)."""
    from studio.core.runs.names import shown_names
    from studio.gui.plots.curves_reel import reel_of_runs

    names = shown_names(store)
    return reel_of_runs(store, run_ids, {r: names.get(r, r) for r in run_ids}, projector)


def _let_go(reel: Any) -> None:
    """The off-screen copy goes now (before the application, not at interpreter exit)."""
    close = getattr(reel, "close", None)
    if close is not None:
        close()
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    reel.widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
