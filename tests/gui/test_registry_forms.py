"""Every registry entry can be picked in the GUI, shows its parameters and makes a valid config;
one catalog optimizer trains end to end from the window."""

import pytest

from studio.core.config import RunConfig
from studio.gui.session.session import registry_for


@pytest.mark.parametrize("section", ["model", "optimizer", "schedule", "data"])
def test_every_entry_is_selectable_with_its_form(window, section):
    form = window.settings.forms[section]
    registry = registry_for(section)
    for entry in registry:
        form.combo.setCurrentText(entry.name)
        assert getattr(window.session.config, section).name == entry.name
        own_file = "usercode" in entry.tags  # path, class and args are the code form's rows (gui/widgets/code_form.py)
        assert len(form._param_rows) == len(entry.params) - (3 if own_file else 0)
        assert (form._code is not None) == own_file
        assert entry.description in form.about.text()
        RunConfig.from_dict(window.session.config.to_dict())  # valid as the GUI built it


def test_a_catalog_optimizer_trains_from_the_window(qtbot, window):
    window.settings.forms["data"].combo.setCurrentText("moons")
    window.settings.forms["optimizer"].combo.setCurrentText("lamb")
    window.session.set_param("train", "epochs", 2)
    window.train_action.trigger()
    run_id = window.session.selected_runs()[0]
    qtbot.waitUntil(lambda: window.session.state == "idle", timeout=90_000)
    run = window.session.store.get(run_id)
    assert run.status == "finished", run.message
    assert run.run_config.optimizer.name == "lamb" and run.summary["steps"] > 0
