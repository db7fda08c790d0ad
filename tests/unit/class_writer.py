"""A student's Studio writing one run into a shared run store (tests of the class board): ``python
tests/unit/class_writer.py HOME LESSON STUDENT LR BEST STEPS`` creates a run tagged for the lesson and the
student, then logs ``val/acc`` rising to BEST over STEPS steps, one transaction a step, as a training run does."""

from __future__ import annotations

import sys
import time

from studio.core.config import RunConfig
from studio.core.runs.class_board import lesson_tags
from studio.core.runs.store import RunStore
from studio.core.vocab import JobState, Metric


def main(home: str, lesson: str, student: str, lr: float, best: float, steps: int) -> None:
    store = RunStore(home)
    run = store.create_run(RunConfig.from_dict({"optimizer": {"name": "adam", "lr": lr}}))
    store.add_tags([run.id], lesson_tags(lesson, student))
    store.set_status(run.id, JobState.RUNNING)
    for step in range(1, steps + 1):
        store.log_metrics(run.id, [(step * 10, Metric.VAL_ACC, best * step / steps, time.time()),
                                   (step * 10, Metric.TRAIN_LOSS, 1.0 / step, time.time())])
    store.set_status(run.id, JobState.FINISHED)
    print(run.id)


if __name__ == "__main__":
    home, lesson, student, lr, best, steps = sys.argv[1:7]
    main(home, lesson, student, float(lr), float(best), int(steps))
