"""A run another process is training cannot be deleted from the run list: Delete… is disabled and says why."""

from __future__ import annotations

import os

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError


def test_delete_is_disabled_for_a_run_another_process_trains(window):
    store = window.session.store
    run = store.create_run(RunConfig().with_overrides(["data.name=moons"]), "elsewhere")
    store.set_status(run.id, "running")
    store.set_procs(run.id, [os.getpid()])  # alive: as if another `studio train` were training it
    done = store.create_run(RunConfig().with_overrides(["data.name=moons"]), "done")
    store.set_status(done.id, "finished")
    window.session.runs_changed.emit()
    runs = window.run_list
    for run_id, enabled in ((run.id, False), (done.id, True)):
        runs._select([run_id])
        runs.tree.setCurrentItem(runs.tree.topLevelItem(runs.run_ids().index(run_id)))
        action = {a.text(): a for a in runs.context_menu().actions()}["Delete…"]
        assert action.isEnabled() is enabled
        if not enabled:
            assert "elsewhere is training; stop it before deleting it" in action.toolTip()
    runs.confirm_delete = lambda ids: True
    assert runs.delete_runs([run.id]) == 0  # even when asked directly
    with pytest.raises(ConfigError, match="being trained by another process"):
        store.delete(run.id)
    assert store.get(run.id).status == "running"


def test_deleting_a_pretraining_run_names_the_runs_fine_tuned_from_it(window):
    """Issue 39.2: the delete question names the runs built on the one deleted, and says they keep working."""
    store = window.session.store
    parent = store.create_run(RunConfig().with_overrides(["data.name=masked_lm", "model.name=bert_mlm"]), "pretrain")
    store.set_status(parent.id, "finished")
    child = store.create_run(RunConfig().with_overrides(
        ["data.name=fortune_sources", "model.name=bert_classifier", f"model.init_from={parent.id}",
         f"data.vocab_from={parent.id}"]), "fine-tuned")
    other = store.create_run(RunConfig().with_overrides(["data.name=moons"]), "unrelated")
    window.session.runs_changed.emit()
    said = window.run_list._built_on([parent.id])
    assert "1 other run was fine-tuned from it and keeps working" in said
    assert window.run_list.names.get(child.id, "fine-tuned") in said and "unrelated" not in said
    assert window.run_list._built_on([other.id]) == "" and window.run_list._built_on([parent.id, child.id]) == ""
