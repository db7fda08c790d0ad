"""The window's actions come from the table in gui/app/actions.py: each is in the menu it names, shortcuts are
unique, none is plain Esc (issue 13), and triggering one calls its command (gui/app/commands.py) with the window's
parts."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QToolBar

from studio.gui.app.actions import ACTIONS, MENUS, spec


def test_every_declared_action_is_in_its_menu_and_on_the_window(window):
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == [title for _key, title in MENUS]
    toolbar = window.findChild(QToolBar, "run_toolbar")
    for row in ACTIONS:
        action = getattr(window, row.attribute)
        assert window.actions_by_id[row.id] is action and action.text() == row.text
        assert action in window.menus[row.menu].actions(), f"{row.id} is not in the {row.menu} menu"
        assert (action in toolbar.actions()) == row.toolbar
        assert action.isCheckable() == row.checkable
    assert [a.text() for a in window.menus["run"].actions() if not a.isSeparator()] == [
        "Train", "Pause", "Stop", "Add to queue", "Run on a cluster…"]
    file_items = [a.text() for a in window.menus["file"].actions()]
    assert file_items.index("Open &recent") == file_items.index("Open run…") + 1
    assert [a.text() for a in window.menus["theme"].actions()] == ["Follow the system", "Light", "Dark"]


def test_shortcuts_are_unique_and_none_is_plain_esc(window):
    keys = [row.key_sequence().toString() for row in ACTIONS if row.shortcut]
    keys = [k for k in keys if k]  # a platform may have no key for a standard one (Quit on some desktops)
    assert len(keys) == len(set(keys)), keys
    for row in ACTIONS:  # a chord that does not parse would silently be no shortcut
        if row.shortcut and not hasattr(QKeySequence.StandardKey, row.shortcut):
            assert not QKeySequence(row.shortcut).isEmpty(), row.shortcut
    esc = QKeySequence(Qt.Key.Key_Escape)
    bound = [a for a in window.findChildren(QAction) if esc in a.shortcuts()]
    bound += [s for s in window.findChildren(QShortcut) if s.key() == esc]
    assert not bound, "Esc belongs to dialogs and pop-ups, never to a window action"
    shortcuts = [a.shortcut().toString() for a in window.findChildren(QAction) if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts)), shortcuts
    assert spec("stop").key_sequence().toString() == "Ctrl+."


def test_every_action_calls_a_command_not_a_window_method():
    """The window only composes: what an action does is a function of gui/app/commands.py taking the shell."""
    import inspect

    from studio.gui.app import commands

    for row in ACTIONS:
        assert inspect.isfunction(row.command) and row.command.__module__ == commands.__name__, row.id
        assert getattr(commands, row.command.__name__) is row.command
        assert list(inspect.signature(row.command).parameters) == ["shell"], row.id


def test_triggering_an_action_calls_its_command_with_the_shell(qtbot, monkeypatch):
    from studio.gui.app import actions
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    called: list[tuple[str, object]] = []
    monkeypatch.setattr(actions, "ACTIONS", tuple(
        replace(row, command=lambda shell, name=row.id: called.append((name, shell))) for row in ACTIONS))
    session = new_session()
    win = MainWindow(session, probe_backend=False)
    qtbot.addWidget(win)
    for row in ACTIONS:
        action = win.actions_by_id[row.id]
        action.setEnabled(True)  # Stop, Pause and "Back to my run store" wait for a run or a watched store
        action.trigger()
        assert called[-1] == (row.id, win.shell), row.id
    assert len(called) == len(ACTIONS)
    session.shutdown(wait_s=5)


def test_every_action_attribute_is_declared_on_the_window_class():
    """``<id>_action`` is set with setattr from the table; the class declares each one (QAction) for mypy."""
    from studio.gui.app.main_window import MainWindow

    declared = {name for name, kind in MainWindow.__annotations__.items() if kind == "QAction"}
    assert declared == {row.attribute for row in ACTIONS}
