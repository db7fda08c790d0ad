"""Closing the window ends the warm back end at once: a server still importing torch used to go on for seconds
(tens under load) after the window had gone, slowing whatever started next (the next window's start-up)."""

from __future__ import annotations

import os
import time

from studio.engine.jobs import backend


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ending_the_warm_back_end_ends_a_server_still_importing_torch():
    backend.end_warm()  # a server an earlier test left warm would be reused: this one must be just started
    backend.start_warm()
    pid = backend.server_pid()
    assert pid is not None and _alive(pid)
    assert backend.loading()  # just started: it is importing torch
    started = time.monotonic()
    backend.end_warm()
    ended = time.monotonic() - started
    assert not _alive(pid)  # reaped, not left a zombie or an orphan
    assert ended < 2.0, f"ending the server took {ended:.1f} s"  # not after its torch import
    assert not backend.is_warm() and backend.server_pid() is None
    assert not backend.loading()
    assert backend.context().get_start_method() == "spawn"  # later jobs are spawned until it is warmed again
