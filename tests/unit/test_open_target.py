"""What a path handed to Studio is (core/open_target.classify): one case per rule, no Qt."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.errors import StudioError
from studio.core.runs import open_target as ot
from studio.core.runs.store import RunStore


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "home")


def test_a_missing_path(tmp_path):
    target = ot.classify(tmp_path / "nowhere")
    assert target.kind == ot.MISSING and not target.remembered and target.config_file is None


def test_a_run_store_is_watched_not_remembered(store):
    store.list()  # the store's runs.db exists
    target = ot.classify(store.home)
    assert target.kind == ot.STORE and target.target == store.home and not target.remembered


def test_a_run_folder_and_its_own_config_open_the_run(store):
    run = store.create_run(RunConfig())
    for given in (run.dir, run.dir / "config.toml"):
        target = ot.classify(given)
        assert target.kind == ot.RUN and target.target == run.dir and target.given == given
        assert target.config_file == run.dir / "config.toml" and target.remembered


def test_a_folder_with_both_runs_db_and_config_is_a_run(tmp_path):
    (tmp_path / "runs.db").write_bytes(b"")
    RunConfig().save(tmp_path / "config.toml")
    assert ot.classify(tmp_path).kind == ot.RUN


def test_a_config_file_is_loaded_whatever_its_name(tmp_path):
    for name in ("lr.toml", "config.toml", "UPPER.TOML"):  # a config.toml outside a run folder is a config file
        RunConfig().save(tmp_path / name)
        target = ot.classify(tmp_path / name)
        assert target.kind == ot.CONFIG and target.config_file == tmp_path / name


def test_a_python_file_is_code_to_read(tmp_path):
    (tmp_path / "my_net.py").write_text("import torch\n")
    target = ot.classify(tmp_path / "my_net.py")
    assert target.kind == ot.CODE and target.config_file is None and target.remembered


def test_a_lesson_file_is_a_lesson_whatever_it_holds(tmp_path):
    (tmp_path / "Week 3.STUDIO-LESSON").write_bytes(b"PK")  # read (and refused if damaged) when opened, not here
    target = ot.classify(tmp_path / "Week 3.STUDIO-LESSON")
    assert target.kind == ot.LESSON and target.config_file is None and target.remembered


def test_everything_else_is_a_dataset_to_import(tmp_path):
    (tmp_path / "table.csv").write_text("x,label\n1,a\n")
    (tmp_path / "images" / "cat").mkdir(parents=True)
    (tmp_path / "data.zip").write_bytes(b"PK")
    for name in ("table.csv", "images", "data.zip"):
        target = ot.classify(tmp_path / name)
        assert target.kind == ot.IMPORT and target.target == tmp_path / name and target.remembered


def test_the_home_folder_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "table.csv").write_text("x\n")
    assert ot.classify("~/table.csv").given == tmp_path / "table.csv"


def test_read_config_says_what_is_wrong(tmp_path):
    (tmp_path / "broken.toml").write_text("[optimizer\n")
    with pytest.raises(StudioError, match="TOML"):
        ot.read_config(tmp_path / "broken.toml")
    RunConfig().with_overrides(["optimizer.lr=0.5"]).save(tmp_path / "ok.toml")
    assert ot.read_config(tmp_path / "ok.toml").optimizer.params["lr"] == 0.5
