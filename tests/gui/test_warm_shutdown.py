"""The session that started the warm back end ends it when it shuts down (the window closing); a session that did
not start it (a test's window, a second window) leaves it to its owner."""

from __future__ import annotations

from studio.core.runs.store import RunStore
from studio.engine.port import ProcessEngine
from studio.gui.session.session import Session


class Recorder(ProcessEngine):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def warm_up(self) -> None:
        self.calls.append("warm_up")

    def end_warm(self) -> None:
        self.calls.append("end_warm")


def test_the_session_that_warmed_up_ends_the_warm_back_end(qtbot):
    engine = Recorder()
    session = Session(RunStore(), engine=engine)
    session.warm_up()
    session.shutdown(wait_s=1)
    assert engine.calls == ["warm_up", "end_warm"]


def test_a_session_that_did_not_warm_up_leaves_it(qtbot):
    engine = Recorder()
    Session(RunStore(), engine=engine).shutdown(wait_s=1)
    assert engine.calls == []
