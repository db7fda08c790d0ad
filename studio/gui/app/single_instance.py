"""One Studio window per user (and STUDIO_HOME): a second ``studio PATH`` hands PATH to the running one.

The first instance listens on a QLocalServer; a later launch connects with a QLocalSocket, sends one JSON
line ``{"paths": [...]}`` (absolute paths) and waits for ``ok``. A server left behind by a crash is removed
when nobody answers on it.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket


def server_name() -> str:
    """A name private to this user and run store (tests with their own STUDIO_HOME do not collide)."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in some sandboxes
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    key = f"{user}|{os.environ.get('STUDIO_HOME', '')}"
    return "studio-" + hashlib.sha1(key.encode()).hexdigest()[:16]


def send_to_running(paths: list[str], name: str | None = None, timeout_ms: int = 1500) -> bool:
    """Hand ``paths`` to a running Studio; True when it acknowledged them (then this launch can exit).

    Runs a small local event loop rather than blocking ``waitFor…`` calls, so both ends may even live in
    one thread (the tests do that)."""
    socket = QLocalSocket()
    loop = QEventLoop()
    answer = bytearray()
    message = (json.dumps({"paths": [os.path.abspath(p) for p in paths]}) + "\n").encode()

    def on_ready() -> None:
        answer.extend(socket.readAll().data())
        if b"\n" in answer:
            loop.quit()

    socket.connected.connect(lambda: socket.write(message))
    socket.readyRead.connect(on_ready)
    socket.errorOccurred.connect(lambda _err: loop.quit())
    socket.disconnected.connect(loop.quit)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(timeout_ms)
    socket.connectToServer(name or server_name())
    if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
        loop.exec()
    timer.stop()
    socket.abort()
    return bytes(answer).startswith(b"ok")


class InstanceServer(QObject):
    """Listens for later launches; emits ``received(paths)`` (possibly empty: "just show the window")."""

    received = Signal(list)

    def __init__(self, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name or server_name()
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start listening, replacing a stale server (one that nobody answers on)."""
        if self.server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self.server.listen(self.name)

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._drop(s))
            if socket.bytesAvailable():  # sent before we got here: readyRead has already gone by
                self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll().data())
        self._buffers[socket] = data
        if b"\n" not in data:
            return
        line = data.split(b"\n", 1)[0]
        try:
            paths = [str(p) for p in json.loads(line.decode()).get("paths", [])]
        except (ValueError, AttributeError):
            socket.write(b"error\n")
            socket.flush()
            return
        socket.write(b"ok\n")
        socket.flush()
        self.received.emit(paths)

    def _drop(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)  # the socket itself goes with the server (its parent)
