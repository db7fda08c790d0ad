"""The one process-job base: every background job (training, landscape, import, preview, demo, model
summary) is a :class:`ProcessJob`.

A job owns one or more child processes (started from the warm back end, ``engine/jobs/backend.py``), one
message queue (child → parent, ``core/contracts/protocol.py`` messages), one control queue (parent → child) and
a cancel flag. The parent calls ``poll()`` from a timer or a thread: it returns the messages so far,
keeps ``state``, ``fraction``/``text``/``eta_s`` (progress), ``result`` and ``errors`` up to date,
notices a child that died, kills a child that ignores Cancel for ``grace_s`` seconds, and ends with
one ``ended`` message (state, a message a person can read, exit code).

A short job is a :class:`TaskJob`: any ``module:function(progress=..., **kwargs)`` run by
:func:`task_main` in the child. Torch-free and Qt-free at import: the GUI imports this module.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from studio.core.contracts import protocol
from studio.core.contracts.progress import (
    ENDED,
    FAILED,
    FINISHED,
    QUEUED,
    RUNNING,
    STOPPED,
    Cancelled,
    Progress,
    Report,
)
from studio.core.contracts.protocol import Received
from studio.core.contracts.tasks import Task
from studio.core.errors import RunFailed, StudioError
from studio.core.host import procs
from studio.core.host import threads as thread_policy
from studio.core.targets import resolve_target
from studio.core.vocab import JobKind
from studio.engine.jobs import backend, child_stderr
from studio.engine.jobs.queues import drain

GRACE_S = 5.0  # after Cancel, a job has this long to stop by itself before it is killed
_ids = itertools.count(1)


def new_job_id(kind: str) -> str:
    """A job id unique in this process: ``landscape-3``."""
    return f"{kind}-{os.getpid()}-{next(_ids)}"


class ProcessJob:
    """A background job in child processes. Subclasses implement ``_launch`` (start the children with
    :meth:`spawn`) and may extend ``_observe`` (a message arrived), ``_on_end`` (all children are gone,
    the state is settled) and ``_death_note`` (words for children that died without a word)."""

    label = "job"  # in words, for messages: "the landscape", "training"
    grace_s = GRACE_S

    def __init__(self, job_id: str, threads: thread_policy.ThreadPlan | None = None) -> None:
        self.id = job_id
        self.threads = threads  # decided at start (``_plan``) unless given
        self.ctx: Any = None  # the start method, chosen at start (``engine/jobs/backend.py``)
        self.ctx_queues = backend.queue_context()
        self.messages = self.ctx_queues.Queue()
        self.control = self.ctx_queues.Queue()
        self.cancel_flag = self.ctx_queues.Event()
        self.processes: list[Any] = []
        self.state = QUEUED
        self.fraction = 0.0
        self.text = ""
        self.eta_s: float | None = None
        self.result: Any = None
        self.errors: list[Received] = []
        self.failure = ""  # why a failed job failed, in words
        self.finished = False
        self.started_at = 0.0
        self.ended_at = 0.0
        self.stderr_path: str | None = None  # where a task's child keeps its stderr (a temporary file, removed
        # at the end: its last lines go into the failure message of a child that died without a word)
        self._cancel_at: float | None = None

    # --- what subclasses provide ---------------------------------------------------------------
    def _launch(self) -> None:
        raise NotImplementedError

    def _plan(self) -> thread_policy.ThreadPlan:
        """Threads for the children (measured when the job starts: start may run off the GUI thread)."""
        return thread_policy.plan(spare=1, short=True)

    def _on_end(self, forced: str | None) -> None:
        """All children are gone and ``state`` is final (``forced``: killed after the grace period)."""

    def _check_health(self) -> str:
        """While the children run: a reason to give up on them (a stall), or ''."""
        return ""

    def _failure_message(self) -> str:
        """Why the job failed, in words: the first error a child reported, else how a child died."""
        return self.errors[0]["message"] if self.errors else self._death_note()

    def _death_note(self) -> str:
        for proc in self.processes:
            code = proc.exitcode
            if code not in (None, 0):
                how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
                note = f"the {self.label} process {how} without reporting an error"
                words = self._last_words(code)
                return child_stderr.with_last_words(note, words) if words else f"{note} (out of memory?)"
        return child_stderr.with_last_words(f"the {self.label} process ended without a result", self._last_words(0))

    def _last_words(self, exitcode: int) -> str:
        """The last lines the child wrote to stderr; for one that exited with an error before it could open its
        file (its first import failed), what the same start says in a fresh interpreter."""
        words = child_stderr.last_lines(self.stderr_path)
        if words or self.stderr_path is None or exitcode <= 0:
            return words
        return child_stderr.start_check(child_stderr.TASK_START_MODULES, cwd=os.getcwd(), env=dict(os.environ))

    # --- starting ------------------------------------------------------------------------------
    @property
    def run_id(self) -> str:
        return self.id

    @property
    def started(self) -> bool:
        return bool(self.processes) or self.finished

    def start(self) -> ProcessJob:
        """Start the children; a job that cannot start raises RunFailed (and is marked failed)."""
        self.started_at = time.monotonic()
        try:
            if self.threads is None:
                self.threads = self._plan()
            self.ctx = backend.context(self.threads)
            self._launch()
        except Exception as err:
            message = f"the {self.label} could not be started: {err}"
            self.errors.append(protocol.error(self.id, message))
            self._teardown()
            self._end()
            raise RunFailed(message) from err
        return self

    def spawn(self, target: Any, args: tuple, name: str) -> Any:
        """Start one child process running ``target(*args)``: in a process group of its own when this process
        shares its caller's group (``core/host/procs.shares_callers_group``), so nothing this job signals reaches
        the caller."""
        args = (procs.shares_callers_group(), target, args)
        target = in_group
        proc = self.ctx.Process(target=target, args=args, name=name, daemon=True)
        try:
            proc.start()
        except Exception as err:  # noqa: BLE001 - only the warm server's own failure is retried
            if not backend.is_warm() or self.ctx.get_start_method() == "spawn":
                raise
            # The warm server could not fork (it died, or a Python whose multiprocessing internals differ from
            # the ones engine/jobs/forkservers.py follows): this process stops asking it, and the child is spawned.
            backend.stop_warm()
            print(f"studio: the warm back end failed ({type(err).__name__}: {err}); starting processes cold",
                  file=sys.stderr)
            self.ctx = backend.context(self.threads)
            proc = self.ctx.Process(target=target, args=args, name=name, daemon=True)
            proc.start()
        self.processes.append(proc)
        return proc

    # --- control -------------------------------------------------------------------------------
    def send(self, command: str) -> None:
        if command not in protocol.CONTROLS:
            raise ValueError(command)
        if not self.finished:
            try:
                self.control.put(command)
            except (OSError, ValueError):
                pass

    def set_params(self, params: dict[str, Any]) -> None:
        """Send new parameter values to a running live task (a TaskJob with ``controls=True`` reads them; other
        jobs ignore them); nothing once it ended."""
        if not self.finished:
            try:
                self.control.put(protocol.set_params(params))
            except (OSError, ValueError):
                pass

    def cancel(self) -> None:
        """Ask the job to stop; it is killed if it has not ended ``grace_s`` seconds later."""
        if self.finished:
            return
        if self._cancel_at is None:
            self._cancel_at = time.monotonic()
        self.cancel_flag.set()
        self.send(protocol.STOP)

    stop = cancel

    # --- following -----------------------------------------------------------------------------
    def poll(self, timeout: float = 0.0, max_messages: int = 5000) -> list[Received]:
        """Messages since the last call (waits up to ``timeout`` for the first); the last one of a job is
        ``ended``."""
        if self.finished:
            return []
        out: list[Received] = drain(self.messages, timeout, limit=max_messages)
        for message in out:
            self._observe(message)
        out.extend(self._watch())
        return out

    def _observe(self, message: Received) -> None:
        kind = message.get("type")
        if kind == protocol.STATUS:
            self.state = message["status"]
        elif kind == protocol.PROGRESS:
            self.fraction, self.text = float(message["fraction"]), str(message.get("text", ""))
            self.eta_s = message.get("eta_s")
        elif kind == protocol.RESULT:
            self.result = message["value"]
        elif kind == protocol.ERROR:
            self.errors.append(message)

    def _watch(self) -> list[Received]:
        """Notice dead children, a cancel that takes too long, and the end of the job."""
        if not self.processes:
            return []
        codes = [p.exitcode for p in self.processes]
        if all(c is not None for c in codes):
            return self._end()
        if any(c not in (None, 0) for c in codes):  # one child died: the others cannot go on
            self._teardown()
            return self._end()
        sick = self._check_health()
        if sick:
            self.errors.insert(0, protocol.error(self.id, sick, rank=-1))
            self._teardown()
            return self._end()
        if self._cancel_at is not None and time.monotonic() - self._cancel_at > self.grace_s:
            self._teardown()
            return self._end(forced=STOPPED)
        return []

    def _end(self, forced: str | None = None) -> list[Received]:
        """All children are gone: read what they left, settle the state, close the queues."""
        for proc in self.processes:
            proc.join(timeout=5)
        tail: list[Received] = drain(self.messages, 0.05, each_timeout=0.05)
        for message in tail:
            self._observe(message)
        self.finished = True
        self.ended_at = time.monotonic()
        if forced and self.state not in ENDED:
            self.state = forced
        elif self.errors:
            self.state = FAILED
        elif self.state not in ENDED:
            self.state = STOPPED if self._cancel_at is not None else FAILED
        if self.state == FAILED:
            self.failure = self._failure_message()
        self._forget_stderr()
        if self.state == FINISHED:
            self.fraction, self.eta_s = 1.0, 0.0
        self._on_end(forced)
        tail.append(self.ended_message())
        for q in (self.messages, self.control):
            q.cancel_join_thread()
            q.close()
        return tail

    @property
    def error(self) -> str | None:
        """Why the job failed, in words (before the end: the first error so far; None if none)."""
        return self.failure or (self.errors[0]["message"] if self.errors else None)

    @property
    def exit_code(self) -> int:
        """0 finished or stopped, 2 a user-fixable error, 3 a failure (the CLI's contract)."""
        if self.state in (FINISHED, STOPPED):
            return 0
        for error in self.errors:
            if error.get("message") == self.failure:
                return int(error.get("exit_code", 3))
        return 3

    def ended_message(self) -> protocol.EndedMessage:
        return protocol.ended(self.id, self.state, self.error or "", self.exit_code, label=self.label)

    def _forget_stderr(self) -> None:
        """Remove a task child's stderr file (what mattered of it is in the failure message)."""
        if self.stderr_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.stderr_path)

    def _teardown(self) -> None:
        for proc in self.processes:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + 3
        for proc in self.processes:
            proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=2)
        for proc in self.processes:  # what a child of its own group left behind (its own children), that group only
            if proc.pid:
                procs.signal_group(proc.pid, signal.SIGKILL)

    def forward(self, sig: int) -> None:
        """Pass a stop signal (SIGTERM) on to the children, each of them or the group of its own it leads (processes
        and groups this job created, no other), as a signal to this process's group would reach them; like Cancel,
        a child that has not ended ``grace_s`` seconds later is killed."""
        if self.finished:
            return
        if self._cancel_at is None:
            self._cancel_at = time.monotonic()
        for proc in self.processes:
            if proc.pid and proc.is_alive() and not procs.signal_group(proc.pid, sig):
                try:
                    os.kill(proc.pid, sig)
                except OSError:  # it ended meanwhile
                    pass

    def kill(self) -> None:
        """Tear the job down now (closing the app without waiting)."""
        if not self.finished:
            self._teardown()
            self._end(forced=STOPPED)

    def wait(self, timeout: float | None = None) -> str:
        """Follow the job until it ends (scripts, the CLI, tests); its final state."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.finished:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{self.label} {self.id} still {self.state}")
            self.poll(timeout=0.1)
        return self.state


# --- short jobs: one function in one child -------------------------------------------------------------
@dataclass
class TaskSpec:
    """What a task child needs (pickled to it)."""

    job_id: str
    target: str  # "module:function"
    kwargs: dict[str, Any]
    label: str
    threads: thread_policy.ThreadPlan
    messages: Any = None
    cancel: Any = None
    frames: bool = False  # pass ``emit(frame)`` to the function (live snapshots for a view)
    env: dict[str, str] = field(default_factory=dict)
    control: Any = None  # the job's control queue (parent → child)
    controls: bool = False  # pass ``controls(wait_s)`` to the function (a live demo the view steers)
    stderr_path: str = ""  # the child's stderr goes to this file too (engine/jobs/child_stderr.py)


def control_reader(control: Any, progress: Progress) -> Any:
    """``controls(wait_s=0.0) -> [(command, values)]``: what the parent sent since the last call (waiting up to
    ``wait_s`` for the first), as ``core/demos/live`` commands: ``("set", params)`` for a ``set_params`` message,
    ``(name, {})`` for a plain command (pause, resume, step, stop). It raises Cancelled once the job is cancelled."""

    def controls(wait_s: float = 0.0) -> list[tuple[str, dict[str, Any]]]:
        progress.check()
        out: list[tuple[str, dict[str, Any]]] = []
        for message in drain(control, wait_s):
            if isinstance(message, dict) and message.get("type") == protocol.SET:
                out.append((protocol.SET, dict(message.get("params", {}))))
            elif isinstance(message, str):
                out.append((message, {}))
        progress.check()
        return out

    return controls




def in_group(own_group: bool, target: Any, args: tuple) -> None:
    """A job's child: ``target(*args)``, first in a process group of its own when ``own_group``."""
    if own_group:
        procs.lead_own_group()
    target(*args)


def task_main(spec: TaskSpec) -> None:
    """The child of a :class:`TaskJob`: run the function, report on the queue, honour cancel."""
    if spec.stderr_path:  # first: a child that dies without a word (native code, os._exit) leaves its last lines
        child_stderr.capture(spec.stderr_path)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides
    os.environ.update(spec.env)
    thread_policy.apply(spec.threads)
    queue, job_id = spec.messages, spec.job_id
    code = 0

    def report(r: Report) -> None:
        queue.put(protocol.progress(job_id, r))

    progress = Progress(report, spec.cancel.is_set, cancelled_message=f"the {spec.label} was cancelled")
    try:
        kwargs = dict(spec.kwargs)
        if spec.frames:
            def emit(data: dict[str, Any]) -> None:
                progress.check()
                queue.put(protocol.frame(job_id, data))
            kwargs["emit"] = emit
        if spec.controls:
            kwargs["controls"] = control_reader(spec.control, progress)
        progress(0.0, "starting")
        value = resolve_target(spec.target)(progress=progress, **kwargs)
        queue.put(protocol.result(job_id, value))
        queue.put(protocol.status(job_id, FINISHED))
    except Cancelled as err:
        queue.put(protocol.status(job_id, STOPPED, message=str(err)))
    except StudioError as err:
        code = err.exit_code or 3
        queue.put(protocol.error(job_id, str(err), exit_code=code, **getattr(err, "fields", {})))
    except MemoryError:
        code = 3
        queue.put(protocol.error(job_id, f"the machine ran out of memory during the {spec.label}; try a smaller "
                                         "size or fewer samples"))
    except BaseException as err:  # noqa: BLE001 - every failure reaches the person as a sentence
        code = 3
        queue.put(protocol.error(job_id, f"the {spec.label} failed: {type(err).__name__}: {err}",
                                 detail=traceback.format_exc()))
    finally:
        queue.close()
        queue.join_thread()  # everything is on the pipe before the process exits
    if code:
        sys.exit(code)


class TaskJob(ProcessJob):
    """``target(progress=..., **kwargs)`` ("module:function") in one child process; its return value is
    ``result``. ``frames``: the function also gets ``emit(frame)`` for live snapshots; ``controls``: it also gets
    ``controls(wait_s)`` (:func:`control_reader`) to read what the parent sends while it runs."""

    def __init__(self, target: str, kwargs: dict[str, Any] | None = None, *, label: str = "job",
                 kind: str = JobKind.TASK, frames: bool = False, threads: thread_policy.ThreadPlan | None = None,
                 grace_s: float | None = None, controls: bool = False) -> None:
        super().__init__(new_job_id(kind), threads)
        self.kind = kind
        self.label = label
        self.target = target
        self.kwargs = dict(kwargs or {})
        self.frames = frames
        self.controls = controls
        if grace_s is not None:
            self.grace_s = grace_s

    def _launch(self) -> None:
        assert self.threads is not None
        fd, self.stderr_path = tempfile.mkstemp(prefix=f"studio-{self.kind}-", suffix=".stderr")
        os.close(fd)
        spec = TaskSpec(self.id, self.target, self.kwargs, self.label, self.threads, self.messages,
                        self.cancel_flag, self.frames, backend.child_env(self.threads, self.ctx), self.control,
                        self.controls, self.stderr_path)
        self.spawn(task_main, (spec,), f"studio-{self.kind}")
        self.state = RUNNING


def task_job(task: Task, request: Any, label: str | None = None) -> Any:
    """A ``TaskJob`` (not started) running ``task`` on ``request`` in a child process."""
    return TaskJob(task.target, {"request": request}, label=label or task.label, kind=task.kind,
                   frames=task.frames)
