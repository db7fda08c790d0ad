"""What a path handed to Studio is (``studio PATH``, File > Open…, a drop, a second launch): pure rules, no Qt.

The window acts on the answer (``MainWindow.open_path``): watch a run store, load a run's config and select the
run, load a config file, read a Python file's models and datasets into the forms (never running it), open a
lesson, import a folder of TensorBoard logs as runs, or import the rest as a dataset.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.runs.store import is_run_config, is_run_dir, is_run_store
from studio.core.runs.tensorboard_import import is_log_dir

MISSING: Final = "missing"
STORE: Final = "store"  # a run store's folder: watched read-only
RUN: Final = "run"  # a run's folder (or its own config.toml): load its config, select the run
CONFIG: Final = "config"  # any other .toml: a run config to load
CODE: Final = "code"  # a .py file: the user's own model or dataset (read with ast, core/usercode/reader.py)
TENSORBOARD: Final = "tensorboard"  # a folder of TensorBoard event files: its runs imported as Studio runs
LESSON: Final = "lesson"  # a .studio-lesson file: opened read-only, on its first step (core/lessons)
IMPORT: Final = "import"  # anything else: a dataset (folder, archive, table, IDX) to import


@dataclass(frozen=True)
class OpenTarget:
    """``kind`` (one of the constants above), the path as given (user home expanded), and ``target``: the folder
    or file to act on (a run's folder for a run's ``config.toml``)."""

    kind: str
    given: Path
    target: Path

    @property
    def config_file(self) -> Path | None:
        """The config to load (a run's or a config file's), None for the other kinds."""
        if self.kind == RUN:
            return layout.config_path(self.target)
        return self.target if self.kind == CONFIG else None

    @property
    def remembered(self) -> bool:
        """Whether it goes into the recent-files list (a run store and a missing path do not)."""
        return self.kind in (RUN, CONFIG, CODE, IMPORT, TENSORBOARD, LESSON)


def classify(path: str | Path) -> OpenTarget:
    """What ``path`` is; the first rule that matches wins (a folder with both ``runs.db`` and ``config.toml`` is a
    run, a ``.toml`` file is a config whatever its name)."""
    given = Path(path).expanduser()
    if not given.exists():
        return OpenTarget(MISSING, given, given)
    if is_run_store(given):
        return OpenTarget(STORE, given, given)
    target = given.parent if is_run_config(given) else given
    if is_run_dir(target):
        return OpenTarget(RUN, given, target)
    if given.is_file() and given.suffix.lower() == ".toml":
        return OpenTarget(CONFIG, given, given)
    if given.is_file() and given.suffix.lower() == ".studio-lesson":
        return OpenTarget(LESSON, given, given)
    if given.is_file() and given.suffix.lower() == ".py":
        return OpenTarget(CODE, given, given)
    if is_log_dir(given):
        return OpenTarget(TENSORBOARD, given, given)
    return OpenTarget(IMPORT, given, given)


def read_config(path: Path) -> RunConfig:
    """The config in ``path``, validated (a ``StudioError`` in words when it cannot be read or is not valid)."""
    config = RunConfig.load(path)
    config.validate()
    return config


def untrusted_code(config: RunConfig) -> list[Path]:
    """The user files of ``config`` that sit in a run folder this user has not trusted (someone else's run):
    the window asks before anything may import them (core/usercode/trust.py)."""
    from studio.core.usercode.run_copy import user_files
    from studio.core.usercode.trust import untrusted

    return untrusted([path for _, path in user_files(config.to_dict())])
