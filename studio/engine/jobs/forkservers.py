"""Forkservers of our own: one ``multiprocessing`` context per server, so that a process can keep several
warm servers (``engine/jobs/backend.py`` keeps one per OpenMP wait policy).

The standard library's forkserver is a module singleton (``multiprocessing.forkserver._forkserver``) that
its Popen class reaches through module-level functions. :class:`ServerContext` is a ``forkserver``
context bound to its own :class:`multiprocessing.forkserver.ForkServer` instance instead; everything else
(the server's main loop, the child's start, fd passing, exit codes) is the standard library's. Children
see an ordinary forkserver child: inside it, ``multiprocessing.forkserver`` describes the server that forked
it, which is how the standard library passes fds to it.

Torch-free: importing this module starts nothing.
"""

from __future__ import annotations

import io
import os
import signal
from multiprocessing import context as mp_context
from multiprocessing import forkserver, popen_forkserver, process, spawn, util
from typing import Any


class _ServerPopen(popen_forkserver.Popen):
    """The standard library's forkserver Popen, asking ``server`` instead of the module's singleton."""

    server: forkserver.ForkServer

    def _launch(self, process_obj: Any) -> None:  # CPython 3.11-3.13 popen_forkserver.Popen._launch
        prep_data = spawn.get_preparation_data(process_obj._name)
        buf = io.BytesIO()
        mp_context.set_spawning_popen(self)
        try:
            mp_context.reduction.dump(prep_data, buf)  # type: ignore[attr-defined]  # CPython internals, untyped
            mp_context.reduction.dump(process_obj, buf)  # type: ignore[attr-defined]
        finally:
            mp_context.set_spawning_popen(None)
        self.sentinel, w = self.server.connect_to_new_process(self._fds)  # type: ignore[attr-defined]  # internals
        _parent_w = os.dup(w)  # the parent's copy of the data pipe: the child's sentinel of its parent
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))  # type: ignore[attr-defined]
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


_servers: dict[int, forkserver.ForkServer] = {}  # ServerProcess._server_key → its server


class ServerProcess(process.BaseProcess):
    """A process started by the server ``_server_key`` names (a plain key: the process object is pickled)."""

    _start_method = "forkserver"
    _server_key = 0

    @staticmethod
    def _Popen(process_obj: Any) -> Any:  # noqa: N802 - multiprocessing's name
        popen = type("ServerPopen", (_ServerPopen,), {"server": _servers[process_obj._server_key]})
        return popen(process_obj)


class ServerContext(mp_context.BaseContext):
    """A ``forkserver`` start method whose processes come from one server that preloads ``preload``."""

    _name = "forkserver"

    def __init__(self, preload: list[str]) -> None:
        self.server = forkserver.ForkServer()
        self.server.set_forkserver_preload(list(preload))
        self.key = len(_servers) + 1
        _servers[self.key] = self.server

    def Process(self, *args: Any, **kwargs: Any) -> ServerProcess:  # noqa: N802
        """A process this context's server will fork (``multiprocessing.Process``'s arguments)."""
        proc = ServerProcess(*args, **kwargs)
        proc._server_key = self.key
        return proc

    def ensure_running(self) -> None:
        """Start the server if it is not running (returns at once; it imports its preload in the background)."""
        self.server.ensure_running()

    def stop(self) -> None:
        """End the server now, even while it is still importing its preload (it would only notice its parent is
        gone once that import is done: seconds of CPU for nothing). The processes it forked keep running."""
        pid = self.pid
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.server._stop()  # type: ignore[attr-defined]  # noqa: SLF001 - closes its pipe, reaps it, unlinks its socket

    @property
    def pid(self) -> int | None:
        """The server's process id (None before it was started)."""
        return self.server._forkserver_pid  # type: ignore[attr-defined]  # noqa: SLF001 - no public accessor
