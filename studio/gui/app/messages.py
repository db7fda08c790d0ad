"""Small wording helpers for messages a person reads: a capital first letter, counts with the right plural,
and a training run's progress line (its ETA in the words every job uses: ``core/jobs.format_eta``)."""

from __future__ import annotations

from studio.core.jobs import format_eta


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised (the rest untouched: names and units keep their case)."""
    return text[:1].upper() + text[1:]


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 file``, ``2 files``."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def run_progress(progress: dict, paused: bool = False) -> str:
    """The status bar's line for a training run: ``Epoch 1/5 · step 20/100 · about 80 s left`` (``ETA …`` until
    the job's ETA is known, ``paused`` while paused). The ETA is the job's own, in ``core/jobs.format_eta``'s
    words, as every other job shows it."""
    eta = "paused" if paused else format_eta(progress.get("eta_s")) or "ETA …"
    return (f"Epoch {progress.get('epoch')}/{progress.get('epochs')} · step {progress.get('step', 0)}/"
            f"{progress.get('total_steps', 0)} · {eta}")
