"""core/contracts/layout.py: the run folder's names, the paths built from a run dir, and the checkpoint listing."""

import subprocess
import sys
from pathlib import Path

import pytest

from studio.core.contracts import layout
from studio.core.errors import ConfigError, DataError


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    return path


def test_paths_are_built_from_the_run_dir(tmp_path):
    run = tmp_path / "runs" / "r1"
    assert layout.runs_dir(tmp_path) == tmp_path / "runs" and layout.database_path(tmp_path) == tmp_path / "runs.db"
    assert layout.config_path(run) == run / "config.toml"
    assert layout.record_path(str(run)) == run / "run.json"  # a str works as well as a Path
    assert layout.checkpoint_path(run, 355) == run / "checkpoints" / "step_0000355.pt"
    assert layout.final_path(run) == run / "checkpoints" / "final.pt"
    assert layout.snapshot_path(run, 0) == run / "snapshots" / "step_0000000.pt"
    assert layout.landscapes_dir(run) == run / "landscapes"
    assert layout.evaluation_path(run, "val", "step 355") == run / "evaluations" / "val-step355.json"
    assert layout.evaluation_stem("test", "final") == "test-final"
    assert layout.compressed_entry_dir(run, "c1") == run / "compressed" / "c1"
    assert layout.sweep_path(run) == run / "compressed" / "sweep.json"
    assert layout.step_of(run / "checkpoints" / "step_0000355.pt") == 355
    assert layout.step_of("final.pt") is None and layout.step_of(".step_0000001.pt.123.tmp") is None


def test_step_files_sort_by_number_and_final_comes_last(tmp_path):
    for step in (120, 0, 9, 10_000_000):  # 10 million has 8 digits: sorting by name would misplace it
        _touch(layout.checkpoint_path(tmp_path, step))
    _touch(layout.final_path(tmp_path))
    _touch(layout.checkpoints_dir(tmp_path) / ".step_0000130.pt.42.tmp")  # a write in progress is not listed
    _touch(layout.checkpoints_dir(tmp_path) / "notes.txt")
    assert [layout.step_of(p) for p in layout.step_files(layout.checkpoints_dir(tmp_path))] == [0, 9, 120, 10_000_000]
    assert [r.step for r in layout.list_checkpoints(tmp_path)] == [0, 9, 120, 10_000_000]
    refs = layout.list_checkpoints(tmp_path, with_final=True)
    assert [r.label for r in refs] == ["step 0", "step 9", "step 120", "step 10000000", "final"]
    assert refs[-1].is_final and refs[-1].step == 10_000_000  # final repeats the last step
    assert layout.final_checkpoint(tmp_path) == refs[-1]
    assert layout.last_checkpoint(tmp_path) == layout.checkpoint_path(tmp_path, 10_000_000)


def test_missing_folders_give_empty_lists(tmp_path):
    missing = tmp_path / "no-such-run"
    assert layout.step_files(missing) == []
    assert layout.list_checkpoints(missing, with_final=True) == []
    assert layout.list_snapshots(missing) == [] and layout.path_points(missing) == []
    assert layout.last_checkpoint(missing) is None
    assert not layout.is_run_dir(missing)
    with pytest.raises(DataError, match="no checkpoints"):
        layout.final_checkpoint(missing)


def test_final_alone_and_path_points(tmp_path):
    _touch(layout.final_path(tmp_path))
    assert layout.final_checkpoint(tmp_path).step == -1  # no step checkpoint to say which step it is
    for step in (0, 50):
        _touch(layout.checkpoint_path(tmp_path, step))
    for step in (0, 20, 40):
        _touch(layout.snapshot_path(tmp_path, step))
    points = layout.path_points(tmp_path)  # checkpoints, plus snapshots at steps no checkpoint holds
    assert [(r.step, r.path.parent.name) for r in points] == [(0, "checkpoints"), (20, "snapshots"),
                                                             (40, "snapshots"), (50, "checkpoints")]


def test_resolve_checkpoint(tmp_path):
    for step in (0, 7):
        _touch(layout.checkpoint_path(tmp_path, step))
    _touch(layout.final_path(tmp_path))
    assert layout.resolve_checkpoint(tmp_path, None).is_final
    assert layout.resolve_checkpoint(tmp_path, "final").step == 7
    assert layout.resolve_checkpoint(tmp_path, "initial").step == 0
    assert layout.resolve_checkpoint(tmp_path, "7").path == layout.checkpoint_path(tmp_path, 7)
    elsewhere = _touch(tmp_path / "copy_step_0000003.pt")
    assert layout.resolve_checkpoint(tmp_path, str(elsewhere)).step == 3
    with pytest.raises(ConfigError, match="saved steps: 0, 7"):
        layout.resolve_checkpoint(tmp_path, "5")
    with pytest.raises(ConfigError, match="unknown checkpoint"):
        layout.resolve_checkpoint(tmp_path, "latest")


def test_is_run_dir(tmp_path):
    assert not layout.is_run_dir(tmp_path)
    _touch(layout.config_path(tmp_path))
    assert layout.is_run_dir(tmp_path)


def test_the_writers_use_the_layout(tmp_path):
    """The store creates what the layout names, and the engine re-exports the one listing."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore

    run = RunStore(tmp_path).create_run(RunConfig())
    assert run.dir.parent == layout.runs_dir(tmp_path) and layout.database_path(tmp_path).is_file()
    assert layout.config_path(run.dir).is_file() and layout.record_path(run.dir).is_file()
    assert layout.checkpoints_dir(run.dir).is_dir() and run.last_checkpoint is None
    _touch(layout.checkpoint_path(run.dir, 12))
    assert run.last_checkpoint == layout.checkpoint_path(run.dir, 12)


def test_layout_is_pure_pathlib():
    code = ("import sys, studio.core.contracts.layout; "
            "print(sorted(m for m in ('torch', 'PySide6', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
