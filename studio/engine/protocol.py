"""Messages between training processes and their parent (GUI or CLI): small, versioned dicts.

Worker → parent: ``metrics`` (rows of (step, name, value, wall_time) plus progress), ``status``,
``log``, ``error`` (a message a person can act on), ``artifact`` (a checkpoint or landscape written).
Parent → worker (rank 0's control queue): ``stop``, ``pause``, ``resume``, ``checkpoint``.
"""

from __future__ import annotations

import time
from typing import Any

VERSION = 1
TYPES = ("metrics", "status", "log", "error", "artifact")
CONTROLS = ("stop", "pause", "resume", "checkpoint")
# Control commands travel between ranks as small integers through one collective.
CONTROL_CODES = {name: i + 1 for i, name in enumerate(CONTROLS)}
CODE_NAMES = {code: name for name, code in CONTROL_CODES.items()}

Message = dict[str, Any]


def _msg(msg_type: str, run_id: str, /, **fields: Any) -> Message:
    return {"v": VERSION, "type": msg_type, "run_id": run_id, "time": time.time(), **fields}


def metrics(run_id: str, rows: list[tuple[int, str, float, float]], *, step: int, total_steps: int,
            epoch: int, epochs: int) -> Message:
    return _msg("metrics", run_id, rows=rows, step=step, total_steps=total_steps, epoch=epoch, epochs=epochs)


def status(run_id: str, state: str, **info: Any) -> Message:
    return _msg("status", run_id, status=state, **info)


def log(run_id: str, text: str, level: str = "info") -> Message:
    return _msg("log", run_id, text=text, level=level)


def error(run_id: str, message: str, *, rank: int = 0, detail: str = "", exit_code: int = 3,
          peer_lost: bool = False) -> Message:
    """``peer_lost``: this rank only lost contact with another (which is the one that failed)."""
    return _msg("error", run_id, message=message, rank=rank, detail=detail, exit_code=exit_code,
                peer_lost=peer_lost)


def artifact(run_id: str, kind: str, path: str, **info: Any) -> Message:
    return _msg("artifact", run_id, kind=kind, path=path, **info)


def check(message: Message) -> Message:
    """Validate a received message (version and type); raise ValueError otherwise."""
    if not isinstance(message, dict) or message.get("v") != VERSION or message.get("type") not in TYPES:
        raise ValueError(f"not a Studio message: {message!r:.200}")
    return message
