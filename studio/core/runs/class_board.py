"""The class board: the runs a class trained for one lesson in a shared run store (a folder every student's Studio
writes to, as a cluster's jobs do), ranked by the lesson's metric while they train, each with the settings that
set it apart from the others' and its student's name (or a number, when the teacher hides names).

A run belongs to a lesson by its tags: ``lesson:<slug of the lesson's title>`` and ``student:<name>``, added when
a student trains with the lesson open (``lesson_tags``). Qt-free: the board's window is ``gui/app/class_board.py``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from studio.core.runs.names import shown_names
from studio.core.runs.settings_diff import differing_keys, format_value
from studio.core.vocab import Metric

LESSON = "lesson:"
STUDENT = "student:"
METRICS = (Metric.VAL_ACC, Metric.TEST_ACC, Metric.VAL_LOSS, Metric.TRAIN_LOSS, Metric.TEST_LOSS)


def slug(text: str, limit: int = 48) -> str:
    """A tag word from a title or a name: lower case, runs of other characters as one dash."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit] or "untitled"


def lesson_tags(lesson_title: str, student: str) -> list[str]:
    """The tags of a run trained with a lesson open."""
    return [LESSON + slug(lesson_title), STUDENT + slug(student, 40)]


def higher_is_better(metric: str) -> bool:
    return metric.endswith("/acc")


@dataclass
class BoardRow:
    rank: int | None  # None: nothing logged yet
    student: str
    run_id: str
    name: str
    status: str
    value: float | None  # the run's best value of the metric so far
    step: int | None  # the last step it was logged at
    settings: str  # "optimizer.lr = 0.01, model.name = cnn": what differs from the class's other runs


def lessons_in(store: Any) -> list[str]:
    """The lessons (tag slugs) that runs of ``store`` were trained for, sorted."""
    return sorted({t[len(LESSON):] for tags in store.tags().values() for t in tags if t.startswith(LESSON)})


def board(store: Any, lesson: str, metric: str = Metric.VAL_ACC, hide_names: bool = False) -> list[BoardRow]:
    """The rows of the board of ``lesson`` (a slug) in ``store``: best first; runs with nothing logged last."""
    tags = store.tags()
    runs = [r for r in store.list() if LESSON + lesson in tags.get(r.id, [])]
    runs.sort(key=lambda r: r.created)
    ids = [r.id for r in runs]
    ranges = store.metric_range(str(metric), ids)
    params = store.all_params()
    keys = differing_keys([params.get(i, {}) for i in ids])
    names = shown_names(store)
    high = higher_is_better(str(metric))
    rows = []
    numbers: dict[str, int] = {}  # a student's number on a board with names hidden: in order of their first run
    for run in runs:
        found = ranges.get(run.id)
        value = None if found is None else (found[1] if high else found[0])
        student = next((t[len(STUDENT):] for t in tags.get(run.id, []) if t.startswith(STUDENT)), "")
        number = numbers.setdefault(student or run.id, len(numbers) + 1)
        settings = ", ".join(f"{k} = {format_value(params.get(run.id, {}).get(k))}" for k in keys)
        rows.append(BoardRow(None, f"student {number}" if hide_names or not student else student, run.id,
                             names.get(run.id, run.name), run.status,
                             value if value is not None and math.isfinite(value) else None,
                             None if found is None else found[2], settings))

    def order(row: BoardRow) -> float:
        value = row.value if row.value is not None else math.inf
        return -value if high else value

    ranked = sorted((r for r in rows if r.value is not None), key=order)
    for place, row in enumerate(ranked, 1):
        row.rank = place
    return ranked + [r for r in rows if r.value is None]
