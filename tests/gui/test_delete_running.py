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
