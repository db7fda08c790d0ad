"""Small wording helpers for messages a person reads: a capital first letter, counts with the right plural,
and a training run's progress line (its ETA in the words every job uses: ``core/jobs.format_eta``)."""

from __future__ import annotations

import re

from studio.core.contracts.progress import format_eta

# The first word of a message (up to a space or a colon): a name (bad.png, ~/data, run_1) keeps its case.
_FIRST_WORD = re.compile(r"[^\s:]*")


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised, unless its first word is a name: a file or a path (``bad.png``,
    ``data/x``, ``~/x.csv``), an identifier (``run_1``, ``lr=0.1``) or a word with digits; a word of letters alone
    (``stopping: …``) is capitalised. The rest is untouched: names and units keep their case (issue 22: "Bad.png"
    for bad.png)."""
    match = _FIRST_WORD.match(text)
    word = match.group(0) if match else ""
    if not word[:1].isalpha() or not word.rstrip(",;.!?…").replace("'", "").isalpha():
        return text
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
