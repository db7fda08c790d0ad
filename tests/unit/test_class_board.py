"""The class board (core/runs/class_board.py) over a shared run store that several students' processes write to at
once: every run of the lesson is on it, ranked by its best value of the metric, with the settings that set it
apart and its student (or a number, names hidden); runs of other lessons are not."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from studio.core.runs import class_board
from studio.core.runs.store import RunStore
from studio.core.vocab import Metric

WRITER = Path(__file__).with_name("class_writer.py")
CLASS = [("Ada", 1e-3, 0.91), ("Grace", 3e-3, 0.87), ("Alan", 1e-2, 0.95), ("Edsger", 3e-2, 0.62)]


def writers(home: Path, lesson: str, students, steps: int = 40) -> list[subprocess.Popen]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH",
                                                                                                         "")])}
    return [subprocess.Popen([sys.executable, str(WRITER), str(home), lesson, name, str(lr), str(best), str(steps)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for name, lr, best in students]


def test_the_slug_and_the_tags():
    assert class_board.slug("Week 3: Optimizers!") == "week-3-optimizers"
    assert class_board.lesson_tags("Week 3", "Ada L.") == ["lesson:week-3", "student:ada-l"]


def test_several_students_writing_at_once_are_ranked(tmp_path):
    home = tmp_path / "shared"
    RunStore(home).close()  # the teacher made the shared store
    procs = writers(home, "Week 3", CLASS) + writers(home, "Week 4", [("Ada", 0.1, 0.99)], steps=5)
    reader = RunStore(home, read_only=True)
    reads = 0
    while any(p.poll() is None for p in procs):  # the board is read while they write: never an error
        assert len(class_board.board(reader, "week-3")) <= len(CLASS)
        reads += 1
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    assert reads > 0
    rows = class_board.board(reader, "week-3")
    assert [r.student for r in rows] == ["alan", "ada", "grace", "edsger"]  # best val/acc first
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert [r.value for r in rows] == pytest.approx([0.95, 0.91, 0.87, 0.62])
    assert all(r.step == 400 and r.status == "finished" for r in rows)
    assert rows[0].settings == "optimizer.lr = 0.01"  # what sets the run apart from the class's others
    assert class_board.lessons_in(reader) == ["week-3", "week-4"]
    hidden = class_board.board(reader, "week-3", hide_names=True)
    assert sorted(r.student for r in hidden) == ["student 1", "student 2", "student 3", "student 4"]
    assert {r.run_id for r in hidden} == {r.run_id for r in rows}
    by_loss = class_board.board(reader, "week-3", Metric.TRAIN_LOSS)  # lower is better
    assert all(math.isclose(r.value, 1 / 40) for r in by_loss)


def test_a_run_with_nothing_logged_yet_is_listed_last_without_a_rank(tmp_path):
    from studio.core.config import RunConfig

    store = RunStore(tmp_path / "shared")
    quiet = store.create_run(RunConfig())
    store.add_tags([quiet.id], class_board.lesson_tags("Week 3", "Barbara"))
    for p in writers(tmp_path / "shared", "Week 3", CLASS[:1], steps=3):
        assert p.wait(timeout=120) == 0
    rows = class_board.board(store, "week-3")
    assert [(r.student, r.rank, r.value) for r in rows][-1] == ("barbara", None, None)
    assert rows[0].rank == 1 and rows[0].value == pytest.approx(0.91)
