"""Run a headless ``studio`` command with ``--json`` in a QProcess: progress from its stderr (``NN% text``
lines), the result from its last stdout line, its one-line error when it fails, and Cancel (kill).

Used by the Compression, Scaling-laws and Data-parallel tabs: the CLI is the tested, public contract and
the child imports torch, never the GUI. The child uses the Session's run store (``STUDIO_HOME``).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, Signal

_PROGRESS = re.compile(r"^\s*(\d+)% (.*)$")


class CliProcess(QObject):
    progress = Signal(float, str)
    done = Signal(object)  # the parsed JSON result
    failed = Signal(str)  # a sentence for a person ("cancelled" when the person stopped it)

    def __init__(self, home: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.home = home
        self.proc: QProcess | None = None
        self._stdout = b""
        self._stderr = ""
        self._cancelled = False

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.state() != QProcess.ProcessState.NotRunning

    def start(self, *args: str) -> None:
        if self.running:
            return
        self._stdout, self._stderr, self._cancelled = b"", "", False
        proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        if self.home:
            env.insert("STUDIO_HOME", str(self.home))
        proc.setProcessEnvironment(env)
        proc.readyReadStandardOutput.connect(self._read_stdout)
        proc.readyReadStandardError.connect(self._read_stderr)
        proc.finished.connect(self._finished)
        proc.errorOccurred.connect(self._error)
        self.proc = proc
        proc.start(sys.executable, ["-m", "studio", *args, "--json"])

    def cancel(self) -> None:
        if self.running:
            self._cancelled = True
            self.proc.kill()

    def _read_stdout(self) -> None:
        self._stdout += bytes(self.proc.readAllStandardOutput())

    def _read_stderr(self) -> None:
        text = bytes(self.proc.readAllStandardError()).decode("utf-8", "replace")
        self._stderr += text
        for line in text.replace("\r", "\n").splitlines():
            m = _PROGRESS.match(line)
            if m:
                self.progress.emit(int(m.group(1)) / 100, m.group(2).strip())

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.failed.emit(f"could not start {sys.executable}")

    def _finished(self, code: int, _status: Any) -> None:
        self._read_stdout()
        if self._cancelled:
            self.failed.emit("cancelled")
            return
        lines = self._stdout.decode("utf-8", "replace").strip().splitlines()
        if code == 0 and lines:
            try:
                self.done.emit(json.loads(lines[-1]))
                return
            except ValueError:
                pass
        errors = [ln for ln in self._stderr.splitlines() if ln.startswith("studio: error:")]
        tail = errors[-1].removeprefix("studio: error:").strip() if errors else \
            (self._stderr.strip().splitlines() or [f"exit code {code}"])[-1]
        self.failed.emit(tail)
