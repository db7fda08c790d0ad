"""The study's storage: one sentence for a storage another process holds locked, a study from another Studio
version (or not made by Studio), a study that does not exist, and Optuna missing."""

from __future__ import annotations

import sqlite3
import sys

import optuna
import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.search import study as study_module
from studio.core.search.space import parse_space
from studio.core.search.study import SearchSpec, create_or_continue, load_spec, storage_path, storage_url

BASE = RunConfig().with_overrides(["data.name=moons"])


def spec(name: str = "s") -> SearchSpec:
    return SearchSpec(name, parse_space(["optimizer.lr=1e-4..1e-1"], BASE), BASE)


def test_a_locked_storage_is_said_in_one_sentence(studio_home, monkeypatch) -> None:
    studio_home.mkdir(parents=True, exist_ok=True)
    create_or_continue(studio_home, spec())
    monkeypatch.setattr(study_module, "LOCK_WAIT_S", 0.2)
    holder = sqlite3.connect(storage_path(studio_home))
    holder.execute("BEGIN EXCLUSIVE")  # another process writing it
    try:
        with pytest.raises(ConfigError, match="is locked by another process") as err:
            create_or_continue(studio_home, spec("other"))
        assert "\n" not in str(err.value)
    finally:
        holder.rollback()
        holder.close()


def test_a_study_from_another_studio_version_or_not_studios_is_refused(studio_home) -> None:
    studio_home.mkdir(parents=True, exist_ok=True)
    old = optuna.create_study(study_name="old", storage=storage_url(studio_home))
    old.set_user_attr("studio", {"schema": 0})
    optuna.create_study(study_name="theirs", storage=storage_url(studio_home))
    with pytest.raises(ConfigError, match=r"from another Studio version \(search schema 0; this one reads schema 1\)"):
        load_spec(studio_home, "old")
    with pytest.raises(ConfigError, match="not made by Studio"):
        load_spec(studio_home, "theirs")
    with pytest.raises(ConfigError, match="no study called 'nope'; the storage has old, theirs"):
        load_spec(studio_home, "nope")


def test_a_study_round_trips_its_spec(studio_home) -> None:
    studio_home.mkdir(parents=True, exist_ok=True)
    made, continued = create_or_continue(studio_home, spec())
    assert not continued
    _, again = load_spec(studio_home, "s")
    assert again.space.texts() == ["optimizer.lr=0.0001..0.1:log"] and again.base.data.name == "moons"
    assert create_or_continue(studio_home, spec())[1]  # the same name and space: continued


def test_without_optuna_the_search_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(ConfigError, match=r"pip install 'studio\[search\]'"):
        study_module.import_optuna()
