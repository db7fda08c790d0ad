"""Messages between background processes and their parent (GUI or CLI): small, versioned dicts.

Every job (training, landscape, import, preview, demo, summary) speaks this one vocabulary; the
names are constants here so the engine and the GUI never spell them twice.

Child → parent: ``metrics`` (rows of (step, name, value, wall_time) plus progress), ``status``,
``progress`` (fraction, text, ETA), ``frame`` (a live snapshot a view draws), ``result`` (what a
short job returns), ``log``, ``error`` (a message a person can act on), ``artifact`` (a checkpoint or
landscape written). The parent adds ``ended`` once a job's processes are gone.
Parent → child (the control queue): ``stop``, ``pause``, ``resume``, ``checkpoint`` (plain strings), ``step``
(one more frame while paused: a live demo) and a ``set`` message (:func:`set_params`: new values for a running
live demo's parameters).

Each message type has a TypedDict (``MetricsMessage`` …, their union ``Message``) that its builder returns; on
the queues they stay plain dicts (version 1). No ``from __future__ import annotations`` here: TypedDict needs
real annotations to tell ``NotRequired`` keys apart (Python 3.11).
"""

import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, NotRequired, TypedDict, cast

from studio.core.contracts import progress as states
from studio.core.contracts.landscape import LandscapeStats
from studio.core.contracts.progress import Report
from studio.core.contracts.runs import RunSummary
from studio.core.vocab import Metric  # noqa: F401 - the metric names, read here as protocol.Metric

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
STAGE: Final = "stage"  # a log message's level: what a run does before its first step ("loading the data")

# --- control commands ----------------------------------------------------------------------------
STOP: Final = "stop"
PAUSE: Final = "pause"
RESUME: Final = "resume"
CHECKPOINT: Final = "checkpoint"
STEP: Final = "step"  # a paused live demo: one more frame, then paused again
CONTROLS = (STOP, PAUSE, RESUME, CHECKPOINT, STEP)
SET: Final = "set"  # the type of a set_params message (a dict on the control queue, not a plain command)
# Control commands travel between ranks as small integers through one collective (training knows no STEP).
CONTROL_CODES = {name: i + 1 for i, name in enumerate(CONTROLS)}
CODE_NAMES = {code: name for name, code in CONTROL_CODES.items()}

# --- artifact kinds ------------------------------------------------------------------------------
CHECKPOINT_FILE: Final = "checkpoint"
LANDSCAPE_FILE: Final = "landscape"
SHARPNESS_FILE: Final = "sharpness"

# the job states, re-exported so a message reader needs one import
QUEUED, RUNNING, PAUSED = states.QUEUED, states.RUNNING, states.PAUSED
FINISHED, FAILED, STOPPED = states.FINISHED, states.FAILED, states.STOPPED

MetricRow = tuple[int, str, float, float]  # (step, metric name, value, wall time)


# --- the messages, typed (on the queues they are plain dicts of these keys) -------------------------
class _Common(TypedDict):
    v: int  # VERSION
    run_id: str  # the run's or the job's id
    time: float  # when the message was made (time.time())


class MetricsMessage(_Common):
    type: Literal["metrics"]
    rows: list[MetricRow]
    step: int
    total_steps: int
    epoch: int
    epochs: int


class StatusMessage(_Common):
    type: Literal["status"]
    status: str  # a JobState
    message: NotRequired[str]  # why it stopped or finished
    summary: NotRequired[RunSummary]  # a finished run's summary (test_acc, …)
    step: NotRequired[int]  # paused / resumed at
    total_steps: NotRequired[int]  # a run that started: its size, where, and on what
    epochs: NotRequired[int]
    world_size: NotRequired[int]
    device: NotRequired[str]


class ProgressMessage(_Common):
    type: Literal["progress"]
    fraction: float
    text: str
    done: int
    total: int
    eta_s: float | None


class FrameMessage(_Common):
    type: Literal["frame"]
    data: dict[str, Any]


class ResultMessage(_Common):
    type: Literal["result"]
    value: Any


class LogMessage(_Common):
    type: Literal["log"]
    text: str
    level: str


class ErrorMessage(_Common):
    type: Literal["error"]
    message: str
    rank: int
    detail: str
    exit_code: int
    peer_lost: bool
    option: NotRequired[str]  # an import that needs the person to choose (core/datasets/importers/options.py)
    choices: NotRequired[list[str]]


class ArtifactMessage(_Common):
    type: Literal["artifact"]
    kind: str  # CHECKPOINT_FILE, LANDSCAPE_FILE, SHARPNESS_FILE
    path: str
    step: NotRequired[int]
    epoch: NotRequired[int]
    summary: NotRequired[LandscapeStats]  # a landscape file's


class EndedMessage(_Common):
    type: Literal["ended"]
    status: str  # the job's last JobState
    message: str
    exit_code: int
    label: NotRequired[str]


Message = (MetricsMessage | StatusMessage | ProgressMessage | FrameMessage | ResultMessage | LogMessage
           | ErrorMessage | ArtifactMessage | EndedMessage)


class SetMessage(TypedDict):
    """Parent → child: new values for a running live demo's parameters (``set_params``)."""

    v: int
    type: Literal["set"]
    params: dict[str, Any]


# A message as a reader gets it (off a queue, check()ed): one of the shapes above, read by key.
Received = Mapping[str, Any]
# the TypedDict of each message type (tests check every builder against it)
MESSAGE_TYPES: dict[str, type] = {METRICS: MetricsMessage, STATUS: StatusMessage, PROGRESS: ProgressMessage,
                                  FRAME: FrameMessage, RESULT: ResultMessage, LOG: LogMessage, ERROR: ErrorMessage,
                                  ARTIFACT: ArtifactMessage, JOB_ENDED: EndedMessage}


# Names and states may be vocab StrEnum members: str() sends their plain string, so what is pickled onto a
# queue is exactly what it always was (the key order too: v, type, run_id, time, then the type's fields).
def metrics(run_id: str, rows: Sequence[MetricRow], *, step: int, total_steps: int, epoch: int,
            epochs: int) -> MetricsMessage:
    return {"v": VERSION, "type": METRICS, "run_id": run_id, "time": time.time(),
            "rows": [(s, str(n), v, w) for s, n, v, w in rows],
            "step": step, "total_steps": total_steps, "epoch": epoch, "epochs": epochs}


def status(run_id: str, state: str, **info: Any) -> StatusMessage:
    """``info``: the optional fields StatusMessage declares (message, summary, step, …)."""
    return {"v": VERSION, "type": STATUS, "run_id": run_id, "time": time.time(),
            "status": str(state), **info}  # type: ignore[typeddict-item]


def progress(run_id: str, report: Report) -> ProgressMessage:
    return {"v": VERSION, "type": PROGRESS, "run_id": run_id, "time": time.time(),
            "fraction": round(report.fraction, 4), "text": report.text, "done": report.done, "total": report.total,
            "eta_s": report.eta_s}


def frame(run_id: str, data: dict[str, Any]) -> FrameMessage:
    return {"v": VERSION, "type": FRAME, "run_id": run_id, "time": time.time(), "data": data}


def result(run_id: str, value: Any) -> ResultMessage:
    return {"v": VERSION, "type": RESULT, "run_id": run_id, "time": time.time(), "value": value}


def log(run_id: str, text: str, level: str = "info") -> LogMessage:
    return {"v": VERSION, "type": LOG, "run_id": run_id, "time": time.time(), "text": text, "level": level}


def stage(run_id: str, text: str) -> LogMessage:
    """What a run is doing before its first step ("importing PyTorch", "loading the data"): the window says it
    instead of a silent wait."""
    return log(run_id, text, STAGE)


def error(run_id: str, message: str, *, rank: int = 0, detail: str = "", exit_code: int = 3,
          peer_lost: bool = False, **fields: Any) -> ErrorMessage:
    """``peer_lost``: this rank only lost contact with another (which is the one that failed); ``fields``:
    what the parent may need to act (e.g. an import's ``option`` and ``choices``)."""
    return {"v": VERSION, "type": ERROR, "run_id": run_id, "time": time.time(),
            "message": message, "rank": rank, "detail": detail, "exit_code": exit_code, "peer_lost": peer_lost,
            **fields}  # type: ignore[typeddict-item]


def artifact(run_id: str, kind: str, path: str, **info: Any) -> ArtifactMessage:
    return {"v": VERSION, "type": ARTIFACT, "run_id": run_id, "time": time.time(),
            "kind": str(kind), "path": path, **info}  # type: ignore[typeddict-item]


def ended(run_id: str, state: str, message: str = "", exit_code: int = 0, **info: Any) -> EndedMessage:
    return {"v": VERSION, "type": JOB_ENDED, "run_id": run_id, "time": time.time(),
            "status": str(state), "message": message, "exit_code": exit_code, **info}  # type: ignore[typeddict-item]


def set_params(params: Mapping[str, Any]) -> SetMessage:
    """A control message: change these parameters of the running (live) demo."""
    return {"v": VERSION, "type": SET, "params": dict(params)}


def check(message: Any) -> Message:
    """Validate a received message (version and type); raise ValueError otherwise."""
    if not isinstance(message, dict) or message.get("v") != VERSION or message.get("type") not in TYPES:
        raise ValueError(f"not a Studio message: {message!r:.200}")
    return cast(Message, message)
