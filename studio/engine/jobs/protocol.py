"""Messages between background processes and their parent (GUI or CLI): small, versioned dicts.

Every job (training, landscape, import, preview, demo, summary) speaks this one vocabulary; the
names are constants here so the engine and the GUI never spell them twice.

Child → parent: ``metrics`` (rows of (step, name, value, wall_time) plus progress), ``status``,
``progress`` (fraction, text, ETA), ``frame`` (a live snapshot a view draws), ``result`` (what a
short job returns), ``log``, ``error`` (a message a person can act on), ``artifact`` (a checkpoint or
landscape written). The parent adds ``ended`` once a job's processes are gone.
Parent → child (the control queue): ``stop``, ``pause``, ``resume``, ``checkpoint``.
"""

from __future__ import annotations

import time
from typing import Any, Final

from studio.core import jobs as states
from studio.core.jobs import Report

VERSION = 1

# --- message types -------------------------------------------------------------------------------
METRICS: Final = "metrics"
STATUS: Final = "status"
PROGRESS: Final = "progress"
FRAME: Final = "frame"
RESULT: Final = "result"
LOG: Final = "log"
ERROR: Final = "error"
ARTIFACT: Final = "artifact"
JOB_ENDED: Final = "ended"  # added by the parent (studio/engine/jobs/process_job.py), never sent by a child
TYPES = (METRICS, STATUS, PROGRESS, FRAME, RESULT, LOG, ERROR, ARTIFACT, JOB_ENDED)

# --- control commands ----------------------------------------------------------------------------
STOP: Final = "stop"
PAUSE: Final = "pause"
RESUME: Final = "resume"
CHECKPOINT: Final = "checkpoint"
CONTROLS = (STOP, PAUSE, RESUME, CHECKPOINT)
# Control commands travel between ranks as small integers through one collective.
CONTROL_CODES = {name: i + 1 for i, name in enumerate(CONTROLS)}
CODE_NAMES = {code: name for name, code in CONTROL_CODES.items()}

# --- artifact kinds ------------------------------------------------------------------------------
CHECKPOINT_FILE: Final = "checkpoint"
LANDSCAPE_FILE: Final = "landscape"
SHARPNESS_FILE: Final = "sharpness"


class Metric:
    """Metric names: what the trainer logs and the curves plot."""

    TRAIN_LOSS: Final = "train/loss"
    TRAIN_ACC: Final = "train/acc"
    TRAIN_EPOCH_LOSS: Final = "train/epoch_loss"
    VAL_LOSS: Final = "val/loss"
    VAL_ACC: Final = "val/acc"
    TEST_LOSS: Final = "test/loss"
    TEST_ACC: Final = "test/acc"
    SHARPNESS: Final = "sharpness/top_eig"


# the job states, re-exported so a message reader needs one import
QUEUED, RUNNING, PAUSED = states.QUEUED, states.RUNNING, states.PAUSED
FINISHED, FAILED, STOPPED = states.FINISHED, states.FAILED, states.STOPPED

Message = dict[str, Any]


def _msg(msg_type: str, run_id: str, /, **fields: Any) -> Message:
    return {"v": VERSION, "type": msg_type, "run_id": run_id, "time": time.time(), **fields}


def metrics(run_id: str, rows: list[tuple[int, str, float, float]], *, step: int, total_steps: int,
            epoch: int, epochs: int) -> Message:
    return _msg(METRICS, run_id, rows=rows, step=step, total_steps=total_steps, epoch=epoch, epochs=epochs)


def status(run_id: str, state: str, **info: Any) -> Message:
    return _msg(STATUS, run_id, status=state, **info)


def progress(run_id: str, report: Report) -> Message:
    return _msg(PROGRESS, run_id, fraction=round(report.fraction, 4), text=report.text, done=report.done,
                total=report.total, eta_s=report.eta_s)


def frame(run_id: str, data: dict[str, Any]) -> Message:
    return _msg(FRAME, run_id, data=data)


def result(run_id: str, value: Any) -> Message:
    return _msg(RESULT, run_id, value=value)


def log(run_id: str, text: str, level: str = "info") -> Message:
    return _msg(LOG, run_id, text=text, level=level)


def error(run_id: str, message: str, *, rank: int = 0, detail: str = "", exit_code: int = 3,
          peer_lost: bool = False, **fields: Any) -> Message:
    """``peer_lost``: this rank only lost contact with another (which is the one that failed); ``fields``:
    what the parent may need to act (e.g. an import's ``option`` and ``choices``)."""
    return _msg(ERROR, run_id, message=message, rank=rank, detail=detail, exit_code=exit_code,
                peer_lost=peer_lost, **fields)


def artifact(run_id: str, kind: str, path: str, **info: Any) -> Message:
    return _msg(ARTIFACT, run_id, kind=kind, path=path, **info)


def ended(run_id: str, state: str, message: str = "", exit_code: int = 0, **info: Any) -> Message:
    return _msg(JOB_ENDED, run_id, status=state, message=message, exit_code=exit_code, **info)


def check(message: Message) -> Message:
    """Validate a received message (version and type); raise ValueError otherwise."""
    if not isinstance(message, dict) or message.get("v") != VERSION or message.get("type") not in TYPES:
        raise ValueError(f"not a Studio message: {message!r:.200}")
    return message
