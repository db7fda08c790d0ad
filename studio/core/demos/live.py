"""A live demo: it runs until stopped, paced to a frame rate a screen can show, and takes changes while it runs
(TensorFlow Playground's way). Torch-free, engine-free.

The engine hands a steerable demo's builder ``controls(wait_s=0.0) -> [(command, values)]`` (what the view sent
since the last call; it raises ``Cancelled`` once the job is stopped). Commands: ``("set", {param: value})``,
``("pause", {})``, ``("resume", {})``, ``("step", {})`` (one frame while paused). :class:`LiveLoop` turns them
into "what changed, may I train on": call :meth:`LiveLoop.next_frame` before each frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Command = tuple[str, dict[str, Any]]
Controls = Callable[..., list[Command]]  # controls(wait_s=0.0)

SET, PAUSE, RESUME, STEP = "set", "pause", "resume", "step"
MAX_FPS = 15.0  # frames a second at most: a screen's worth, and little CPU spent on pictures nobody sees
WAIT_S = 0.1  # how long a paused loop waits for a command before it looks again (and notices a cancel)


class LiveLoop:
    """Paces a live demo and reads its controls: :meth:`next_frame` returns the parameter changes that arrived
    (merged, the newest value of each) once the next frame may be computed — at most ``fps`` frames a second,
    never while paused (a ``step`` lets one frame through)."""

    def __init__(self, controls: Controls, fps: float = MAX_FPS, paused: bool = False,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.controls = controls
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.paused = paused
        self.clock, self.sleep = clock, sleep
        self._due = clock()
        self._changes: dict[str, Any] = {}
        self.on_pause: Callable[[bool], None] | None = None  # told when the pause state changes (a status frame)

    def _read(self, wait_s: float) -> bool:
        """Take in what arrived; True when a ``step`` came."""
        stepped = False
        for command, values in self.controls(wait_s):
            if command == SET:
                self._changes.update(values)
            elif command in (PAUSE, RESUME) and self.paused != (command == PAUSE):
                self.paused = command == PAUSE
                if self.on_pause is not None:
                    self.on_pause(self.paused)
            elif command == STEP:
                stepped = True
        return stepped

    def next_frame(self) -> tuple[dict[str, Any], bool]:
        """Wait for the next frame's turn: (the parameter changes since the last frame, whether to train before
        drawing it). Paused, a change comes back at once with ``False`` (apply it and redraw, no training)."""
        stepped = self._read(0.0)
        while True:
            while self.paused and not stepped:
                stepped = self._read(WAIT_S)
                if self._changes and not stepped:
                    changes, self._changes = self._changes, {}
                    return changes, False
            if self.paused:  # a step while paused: one frame, no pacing
                break
            wait = self._due - self.clock()
            while wait > 0 and not self.paused:  # sleep in short naps: a change or a pause is not kept waiting
                stepped |= self._read(min(wait, WAIT_S))
                wait = self._due - self.clock()
            if not self.paused:  # (paused while it waited: back to waiting for resume or step)
                self._due = max(self._due + self.period, self.clock())
                break
        changes, self._changes = self._changes, {}
        return changes, True
