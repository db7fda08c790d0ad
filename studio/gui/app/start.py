"""Starting the GUI: the QApplication, the single-instance hand-off (a second ``studio PATH`` gives its paths to
the window already open), the theme, the Session and the main window (``studio/app.py`` calls :func:`run_gui` with
the engine: the GUI imports no engine module)."""

from __future__ import annotations

import os
import sys
import time
from typing import cast

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from studio.core.contracts.engine_port import EnginePort
from studio.core.errors import StudioError
from studio.gui.app import commands
from studio.gui.app.commands import app_icon
from studio.gui.app.main_window import MainWindow
from studio.gui.app.settings import SettingsStore
from studio.gui.session import theme
from studio.gui.session.session import Session


def run_gui(argv: list[str], engine: EnginePort) -> int:
    """Open the main window (``studio [PATH ...]``) on ``engine``; with a Studio already open, hand PATHs to it and
    exit."""
    from studio.gui.app.single_instance import InstanceServer, send_to_running

    started = time.perf_counter()
    # Qt takes its own options (-style …)
    app = cast(QApplication, QApplication.instance() or QApplication([sys.argv[0], *argv]))
    app.setApplicationName("Studio")
    app.setOrganizationName("Studio")
    app.setDesktopFileName("studio")
    app.setWindowIcon(app_icon())
    from studio.gui.session.main_thread_gc import MainThreadGC

    MainThreadGC(parent=app)  # no Qt object is ever destroyed by a collection on a worker thread
    args = [a for a in app.arguments()[1:] if a in argv]
    new_instance = "--new-instance" in args
    paths = [a for a in args if not a.startswith("-")]
    if not new_instance and send_to_running(paths):
        print("studio: handed over to the Studio window already open", file=sys.stderr)
        return 0
    server = InstanceServer(parent=app)
    if not new_instance:
        server.listen()
    prefs = SettingsStore()
    theme.apply(prefs.theme, app)
    try:
        session = Session(engine=engine)
    except StudioError as err:  # an unusable run store (read-only, a folder, a full disk): say so, don't crash
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(None, "Studio cannot open its run store", str(err))
        print(f"studio: error: {err}", file=sys.stderr)
        return err.exit_code
    window = MainWindow(session, prefs=prefs)
    server.received.connect(lambda paths: commands.open_paths(window.shell, paths))
    app.styleHints().colorSchemeChanged.connect(window.themes.follow_system)
    window.show()
    for path in paths:
        QTimer.singleShot(0, lambda p=path: commands.open_path(window.shell, p))
    if os.environ.get("STUDIO_STARTUP_REPORT"):  # tests/benchmarks/bench_startup.py and the bundle smoke test
        def report() -> None:
            print(f"studio: window shown {time.perf_counter() - started:.3f} s after run_gui; "
                  f"torch imported: {'torch' in sys.modules}", flush=True)
            QTimer.singleShot(0, report_curves)

        def report_curves() -> None:
            assert window.curves_pane.curves is not None  # built now if the timer has not yet
            print(f"studio: curves shown {time.perf_counter() - started:.3f} s after run_gui; "
                  f"torch imported: {'torch' in sys.modules}", flush=True)
            if os.environ["STUDIO_STARTUP_REPORT"] == "quit":
                window.close()

        QTimer.singleShot(0, report)
        report_runs(session)
    code = app.exec()
    server.close()
    return code


def report_runs(session: Session) -> None:
    """Under ``STUDIO_STARTUP_REPORT``: every session status message, each run's first curve point and end, stamped with
    ``time.monotonic()`` (one clock for every process of the machine): tests/benchmarks/test_first_point.py times
    Train → first point in the real window from these."""
    first: set[str] = set()

    def said(text: str) -> None:
        print(f"studio: {time.monotonic():.3f} status: {text}", flush=True)

    def point(run_id: str, _rows: object) -> None:
        if run_id not in first:
            first.add(run_id)
            print(f"studio: {time.monotonic():.3f} first point of run {run_id}", flush=True)

    session.status_text.connect(said)
    session.metrics.connect(point)
    session.run_ended.connect(lambda run_id, status, _message: print(
        f"studio: {time.monotonic():.3f} run {run_id} ended: {status}", flush=True))
