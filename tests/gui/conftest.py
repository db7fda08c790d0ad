"""GUI fixtures: the real main window on a fresh session (each test has its own STUDIO_HOME)."""

import pytest

from studio.core.runs.store import RunStore
from studio.gui.app.main_window import MainWindow
from studio.gui.session.session import Session


@pytest.fixture
def window(qtbot):
    """A shown main window that closes without asking; its runs are stopped afterwards."""
    session = Session(RunStore())
    win = MainWindow(session, probe_backend=False)
    win.confirm_close = lambda: True
    win.confirm_warnings = lambda warnings: True  # tiny test datasets are warned about; train anyway
    qtbot.addWidget(win)
    win.show()
    yield win
    session.shutdown(wait_s=10)
