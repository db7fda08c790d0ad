"""GUI fixtures: the real main window on a fresh session (each test has its own STUDIO_HOME), and
:func:`new_session`, the one place a test's Session gets its engine."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from studio.gui.session.session import Session


def new_session(store: RunStore | None = None, config: RunConfig | None = None) -> Session:
    """A Session on the real engine, as ``studio/app.py`` gives it to the window (tests may import the engine;
    the GUI may not)."""
    from studio.engine.port import engine

    return Session(store, config, engine=engine())


@pytest.fixture
def window(qtbot):
    """A shown main window that closes without asking; its runs are stopped afterwards."""
    session = new_session(RunStore())
    win = MainWindow(session, probe_backend=False)
    win.shell.confirm_close = lambda: True
    win.shell.confirm_warnings = lambda warnings: True  # tiny test datasets are warned about; train anyway
    qtbot.addWidget(win)
    win.show()
    yield win
    session.shutdown(wait_s=10)
