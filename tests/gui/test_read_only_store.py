"""Watching a read-only run store (issue 22): Train, Add to queue and Resume are off, and say why and the way back;
a refused start names the way back too. Back in one's own store they work again."""

from __future__ import annotations

from PySide6.QtCore import Qt

from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.runs.store import RunStore
from studio.gui.app import commands
from tests.conftest import TINY_CONFIG


def test_train_is_off_with_the_reason_while_watching(qtbot, window, tmp_path, monkeypatch):
    errors: list[tuple[str, str]] = []
    monkeypatch.setattr(type(window.status), "show_error", lambda self, title, message: errors.append((title, message)))
    shared = RunStore(tmp_path / "shared")
    run = shared.create_run(RunConfig.from_toml(TINY_CONFIG), name="stopped on the cluster")
    (layout.checkpoints_dir(run.dir) / "step_0000010.pt").write_bytes(b"x")  # resumable in one's own store
    shared.set_status(run.id, "stopped")
    shared.close()
    assert window.train_action.isEnabled() and window.queue_action.isEnabled()

    assert commands.open_path(window.shell, str(tmp_path / "shared")) == "store"
    for action in (window.train_action, window.queue_action):
        assert not action.isEnabled()
        assert "read-only" in action.toolTip() and "Back to my run store" in action.toolTip()
    assert "Train is off" in window.status.message.text()
    window.session.set_selection([run.id])
    window.run_list.tree.topLevelItem(0).setSelected(True)
    assert not window.run_list.resume_button.isEnabled() and "read-only" in window.run_list.resume_button.toolTip()

    qtbot.keyClick(window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Train's shortcut: nothing
    assert window.session.jobs == {} and errors == []
    for start in (window.session.train, window.session.enqueue, lambda: window.session.resume_run(run.id)):
        assert not start()  # refused in words that show the way back, and nothing written
        assert "read-only" in errors[-1][1] and "Back to my run store" in errors[-1][1]
    assert len(RunStore(tmp_path / "shared").list()) == 1

    commands.watch_own_store(window.shell)
    assert window.train_action.isEnabled() and window.queue_action.isEnabled()
    assert "read-only" not in window.train_action.toolTip() and window.train_action.toolTip().startswith("Start")
