"""A child that dies before it can report leaves its last words (issue 33): stderr kept in a file by the child
from its first line, read back by the parent; a child that cannot even start is diagnosed by a fresh start."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

from studio.core.host import child_env
from studio.engine.jobs import child_stderr
from studio.engine.training import rank_watch


def _dies_loudly(path: str) -> None:
    child_stderr.capture(path)
    print("loading the data", file=sys.stderr)
    os.write(2, b"native code: segfault soon\n")  # written below Python, straight to the descriptor
    raise SystemExit("ImportError: no module named 'my_layers'")


def test_a_childs_stderr_is_kept_and_its_last_lines_read_back(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "rank0.stderr"
    child = multiprocessing.get_context("spawn").Process(target=_dies_loudly, args=(str(path),))
    child.start()
    child.join(60)
    assert child.exitcode == 1
    words = child_stderr.last_lines(path)
    assert words.splitlines() == ["loading the data", "native code: segfault soon",
                                  "ImportError: no module named 'my_layers'"]
    assert child_stderr.last_lines(path, lines=1) == "ImportError: no module named 'my_layers'"
    assert child_stderr.last_lines(tmp_path / "none") == "" and child_stderr.last_lines(None) == ""


def test_long_lines_are_cut_and_only_the_tail_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.stderr"
    path.write_bytes(b"x" * 200_000 + b"\n" + b"y" * 1000 + b"\nlast\n")
    assert child_stderr.last_lines(path).splitlines() == ["y" * child_stderr.TAIL_CHARS, "last"]


def test_a_silent_death_carries_the_ranks_last_words() -> None:
    words = {0: "", 1: "Traceback (most recent call last):\nRuntimeError: CUDA error"}
    message = rank_watch.first_failure([], [0, 1], None, words.__getitem__)
    assert message == ("training process rank 1 exited with code 1 without reporting an error; its last lines on "
                       "stderr:\nTraceback (most recent call last):\nRuntimeError: CUDA error")
    assert rank_watch.first_failure([], [0, 1], None) == ("training process rank 1 exited with code 1 without "
                                                          "reporting an error")


def test_the_start_check_names_what_a_child_cannot_import(tmp_path: Path) -> None:
    (tmp_path / "studio").mkdir()  # a clone called studio/ beside where the child starts
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    failing = child_stderr.start_check(cwd=tmp_path, env=env)
    assert "cannot import name 'version_line' from 'studio'" in failing
    child_env.immune_to_working_folder(env)
    assert child_stderr.start_check(cwd=tmp_path, env=env) == ""  # the same start, immune: it imports


def test_a_studio_run_from_its_source_folder_puts_that_folder_on_the_childrens_path(monkeypatch) -> None:
    env: dict[str, str] = {"PYTHONPATH": "/somewhere"}
    monkeypatch.setattr(child_env, "installed", lambda: False)
    child_env.immune_to_working_folder(env)
    root = str(child_env.studio_root())
    assert env == {"PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join([root, "/somewhere"])}
    child_env.immune_to_working_folder(env)  # twice: the folder is not added again
    assert env["PYTHONPATH"].split(os.pathsep).count(root) == 1
    monkeypatch.setattr(child_env, "installed", lambda: True)
    installed: dict[str, str] = {}
    child_env.immune_to_working_folder(installed)
    assert installed == {"PYTHONSAFEPATH": "1"}
