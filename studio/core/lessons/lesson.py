"""A lesson's steps, checked as they are read: only known kinds, a demo of the catalog with settings it accepts,
a training config of Studio's own entries (no user code file, no model folder: nothing a lesson names can run
code), run names and plain-text notes of bounded length."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.core.errors import StudioError

KINDS = ("demo", "dataset", "config", "compare", "note")
MAX_STEPS = 200
MAX_TEXT = 20_000  # characters of a step's notes
MAX_RUNS = 100  # runs a compare step names
CODE_TAGS = frozenset({"file", "usercode", "folder_or_id", "hf", "external"})  # entries that read or run code


class LessonError(StudioError):
    """A lesson file that cannot be opened or saved, in one sentence."""


@dataclass
class Step:
    """One step. ``kind``: ``demo`` (``demo`` with ``params``), ``dataset`` (a dataset's name), ``config`` (a run
    config as a dict), ``compare`` (run names, ``runs``) or ``note``; every kind has a ``title`` and ``notes``."""

    kind: str
    title: str = ""
    notes: str = ""
    demo: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    dataset: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "title": self.title, "notes": self.notes}
        extra: dict[str, dict[str, Any]] = {
            "demo": {"demo": self.demo, "params": self.params}, "dataset": {"dataset": self.dataset},
            "config": {"config": self.config}, "compare": {"runs": self.runs}}
        out.update(extra.get(self.kind, {}))
        return out

    def heading(self) -> str:
        """The step's title, or what it shows when it has none."""
        if self.title:
            return self.title
        from studio.core.demos.catalog import DEMOS

        return {"demo": lambda: DEMOS.get(self.demo).description if self.demo in DEMOS.names() else self.demo,
                "dataset": lambda: f"The data: {self.dataset}",
                "config": lambda: "A training set-up",
                "compare": lambda: f"Compare {len(self.runs)} runs",
                "note": lambda: "Notes"}[self.kind]()


@dataclass
class Lesson:
    title: str
    steps: list[Step]

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "steps": [s.to_dict() for s in self.steps]}


def _text(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise LessonError(f"the lesson is damaged: {what} is not text")
    if len(value) > limit:
        raise LessonError(f"the lesson is damaged: {what} is longer than {limit:,} characters")
    return value


def step_from_dict(data: Any, number: int) -> Step:
    """Step ``number`` (1-based, for the sentence) from its dict, checked; LessonError names what is wrong."""
    where = f"step {number}"
    if not isinstance(data, dict):
        raise LessonError(f"the lesson is damaged: {where} is not a step")
    kind = data.get("kind")
    if kind not in KINDS:
        raise LessonError(f"{where} is a {kind!r} step, which this Studio does not know; update Studio to open it")
    step = Step(kind, _text(data.get("title", ""), f"{where}'s title", 200), _text(data.get("notes", ""),
                                                                                   f"{where}'s notes"))
    if kind == "demo":
        step.demo, step.params = check_demo(data.get("demo"), data.get("params", {}), where)
    elif kind == "dataset":
        step.dataset = check_dataset(data.get("dataset"), where)
    elif kind == "config":
        step.config = check_config(data.get("config"), where)
    elif kind == "compare":
        runs = data.get("runs")
        if not isinstance(runs, list) or not runs or len(runs) > MAX_RUNS:
            raise LessonError(f"the lesson is damaged: {where} names no runs to compare (1 to {MAX_RUNS})")
        step.runs = [_text(r, f"{where}'s run name", 200) for r in runs]
    return step


def check_demo(name: Any, params: Any, where: str) -> tuple[str, dict[str, Any]]:
    from studio.core.demos.catalog import DEMOS

    if not isinstance(name, str) or name not in DEMOS.names():
        raise LessonError(f"{where} shows the demo {name!r}, which this Studio does not have; update Studio to open it")
    if not isinstance(params, dict):
        raise LessonError(f"the lesson is damaged: {where}'s demo settings are not a table")
    try:
        return name, DEMOS.resolve(name, dict(params), "demo")
    except StudioError as err:
        raise LessonError(f"{where}'s demo settings cannot be used: {str(err).rstrip('.')}") from None


def check_dataset(name: Any, where: str) -> str:
    from studio.core.datasets import DATASETS

    if not isinstance(name, str) or name not in DATASETS.names():
        raise LessonError(f"{where} uses the dataset {name!r}, which this Studio does not have")
    if CODE_TAGS & set(DATASETS.get(name).tags):
        raise LessonError(f"{where} uses {name!r}, data read by code or from a folder: a lesson names only Studio's "
                          "own datasets")
    return name


def check_config(config: Any, where: str) -> dict[str, Any]:
    """A config a lesson may carry: valid, and naming only Studio's own entries (none that reads a user's file)."""
    from studio.core.config import RunConfig
    from studio.core.config.run_config import CHOICE_SECTIONS, REGISTRIES

    if not isinstance(config, dict):
        raise LessonError(f"the lesson is damaged: {where}'s config is not a table")
    for section in CHOICE_SECTIONS:
        values = config.get(section, {})
        name = values.get("name") if isinstance(values, dict) else None
        if isinstance(name, str) and name in REGISTRIES[section].names():
            if CODE_TAGS & set(REGISTRIES[section].get(name).tags):
                raise LessonError(f"{where}'s [{section}] is {name!r}, which reads a file or runs code: a lesson "
                                  "names only Studio's own models and data")
    try:
        return RunConfig.from_dict(config).to_dict()
    except StudioError as err:
        raise LessonError(f"{where}'s config cannot be used: {str(err).rstrip('.')}") from None


def lesson_from_dict(data: Any) -> Lesson:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise LessonError("the lesson is damaged: it has no list of steps")
    steps = data["steps"]
    if not steps or len(steps) > MAX_STEPS:
        raise LessonError(f"the lesson is damaged: a lesson has 1 to {MAX_STEPS} steps, this one {len(steps)}")
    return Lesson(_text(data.get("title", ""), "its title", 200), [step_from_dict(s, i) for i, s in
                                                                   enumerate(steps, 1)])
