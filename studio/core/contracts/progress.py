"""The one vocabulary of long work: job states, ``Cancelled`` and ``Progress`` (with an ETA).

Every background job (training, landscapes, imports, previews, demos, summaries) and every long
function they call report through a :class:`Progress` and stop by raising :class:`Cancelled`. Pure
Python: no torch, no Qt, no processes (the process side is ``studio/engine/jobs/process_job.py``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from studio.core.errors import StudioError
from studio.core.vocab import JobState

# --- states (a run in the store and a job in the GUI share them): aliases of core/vocab.py's JobState ------
# (typed str, so a state read back from a message or the database fits the same variables)
QUEUED: Final[str] = JobState.QUEUED
RUNNING: Final[str] = JobState.RUNNING
PAUSED: Final[str] = JobState.PAUSED
FINISHED: Final[str] = JobState.FINISHED
FAILED: Final[str] = JobState.FAILED
STOPPED: Final[str] = JobState.STOPPED
CANCELLED: Final[str] = JobState.CANCELLED  # taken out of the run queue before it started
INTERRUPTED: Final[str] = JobState.INTERRUPTED  # a run whose processes vanished (the machine rebooted): resumable
PRUNED: Final[str] = JobState.PRUNED  # stopped early by a hyperparameter search, with a checkpoint: resumable
STATES: Final = tuple(JobState)  # (QUEUED, RUNNING, PAUSED, FINISHED, FAILED, STOPPED, CANCELLED, INTERRUPTED, PRUNED)
ENDED: Final = (FINISHED, FAILED, STOPPED, CANCELLED, PRUNED)  # what a job reaches by itself (a run, pruned)


class Cancelled(StudioError):
    """The person stopped the work; nothing half-done was kept."""

    exit_code = 0

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


@dataclass(frozen=True)
class Report:
    """One progress report: how far (0..1), what is happening, and the estimated seconds left."""

    fraction: float
    text: str
    done: int = 0
    total: int = 0  # units of the current stage (0: unknown)
    eta_s: float | None = None


ReportCallback = Callable[[Report], None]


class EtaEstimator:
    """Seconds left from the progress rate of a recent window: the one ETA of every job, GUI and CLI alike.

    The rate is measured from the first report on (start-up is not work) over the last ``window(elapsed)``
    seconds: a quarter of the time measured so far, at least ``min_window_s`` and at most ``max_window_s``.
    So neither the first seconds (a fast preview, a slow warm-up) nor a load that came or went minutes ago
    decide the estimate (issue 22: "about 28 s" that took 2 min, "about 5 min" that took 75 s). Progress
    that goes back (a new stage) starts the measurement again; so does :meth:`reset` (a pause), and progress
    that resumes after a reported stall longer than half the window (a start-up: issue 33's "about 46 min left"
    a minute before the end); during such a stall the estimate is unknown (None), not a rate that tends to 0.
    """

    def __init__(self, min_window_s: float = 10.0, max_window_s: float = 120.0, share: float = 0.25) -> None:
        self.min_window_s, self.max_window_s, self.share = min_window_s, max_window_s, share
        self._samples: deque[tuple[float, float]] = deque()  # (time, fraction), oldest first
        self._first_t: float | None = None
        self.eta_s: float | None = None

    def reset(self) -> None:
        """Forget what was measured (paused time is not working time)."""
        self._samples.clear()
        self._first_t, self.eta_s = None, None

    def window(self, elapsed_s: float) -> float:
        return min(self.max_window_s, max(self.min_window_s, self.share * elapsed_s))

    def _resumes_after_a_long_stall(self, fraction: float, now: float) -> bool:
        """Whether progress resumes (``fraction`` above the last) after a long stall the job reported (the same
        fraction again and again: a start-up, the next stage's processes starting): that was not work at the rate
        to come, and measured with it, 1 % in the first second after a minute of stall read as 40 min left
        (issue 33). Progress that only comes seldom (no reports between) is slow, not stalled."""
        return fraction > (self._samples[-1][1] if self._samples else 1.0) and self._long_stall(now)

    def _long_stall(self, now: float) -> bool:
        """Whether the job has reported the same fraction for more than half the window: measured with the
        window, the rate would fall towards 0 and the estimate grow without bound (40 min for 30 s)."""
        return self._first_t is not None and self._stall_s() > 0.5 * self.window(now - self._first_t)

    def update(self, fraction: float, now: float | None = None) -> float | None:
        """Record ``fraction`` (0..1) done at ``now`` (``time.monotonic()``); the seconds left (None: no rate yet)."""
        now = time.monotonic() if now is None else now
        fraction = min(max(float(fraction), 0.0), 1.0)
        if self._samples and fraction < self._samples[-1][1]:
            self.reset()
        if self._first_t is None:
            self._first_t = now
        if len(self._samples) >= 2 and self._samples[-1][1] == self._samples[-2][1] == fraction:
            self._samples[-1] = (now, fraction)  # no progress since: keep one sample for the stall
        else:
            if self._resumes_after_a_long_stall(fraction, now):
                self._samples = deque([self._samples[-1]])  # the rate counts from the stall's end
            self._samples.append((now, fraction))
        start = now - self.window(now - self._first_t)
        while len(self._samples) > 2 and self._samples[1][0] <= start:  # keep one sample at or before the start
            self._samples.popleft()
        t0, f0 = self._samples[0]
        if fraction >= 1.0:
            self.eta_s = 0.0
        elif self._long_stall(now):
            self.eta_s = None  # stalled for long (a stage starting up): unknown until it moves again
        elif now > t0 and fraction > f0:
            self.eta_s = (1.0 - fraction) * (now - t0) / (fraction - f0)
        # else no report in the whole window (a long evaluation): the last estimate stands
        return self.eta_s

    def _stall_s(self) -> float:
        """How long the job has been reporting the same fraction (0 when the last report moved it)."""
        if len(self._samples) < 2 or self._samples[-1][1] != self._samples[-2][1]:
            return 0.0
        return self._samples[-1][0] - self._samples[-2][0]


class Progress:
    """Reports progress at most every ``interval`` seconds and raises :class:`Cancelled` once
    ``cancelled()`` says so.

    Two ways to use it, both on the same object: call it as ``progress(fraction, text)`` (demos,
    landscapes), or count work in stages: ``stage(text, total)`` then ``advance(n)`` (imports). A
    stage's fraction is ``done / total``; ``span(lo, hi)`` maps a sub-task's 0..1 onto part of the whole.
    """

    def __init__(self, callback: ReportCallback | None = None, cancelled: Callable[[], bool] | None = None,
                 interval: float = 0.1, cancelled_message: str = "cancelled") -> None:
        self.callback = callback
        self.cancelled = cancelled or (lambda: False)
        self.interval = interval
        self.cancelled_message = cancelled_message
        self.fraction = 0.0
        self.text = ""
        self.done = 0
        self.total = 0
        self.started = time.monotonic()
        self._last = 0.0
        self._eta = EtaEstimator()

    # --- fraction-style ------------------------------------------------------------------------
    def __call__(self, fraction: float, text: str) -> None:
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        self.text = str(text)
        self._tick(force=self.fraction >= 1.0)

    # --- stage-style ---------------------------------------------------------------------------
    def stage(self, text: str, total: int = 0) -> None:
        """Start a new stage of ``total`` units (0: unknown)."""
        self.check()
        self.text, self.total, self.done = text, total, 0
        self._tick(force=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.total:
            self.fraction = min(1.0, self.done / self.total)
        self._tick()

    def finish(self) -> None:
        self.done = self.total
        self.fraction = 1.0
        self._tick(force=True)

    # --- both ----------------------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`Cancelled` if the person asked to stop."""
        if self.cancelled():
            raise Cancelled(self.cancelled_message)

    @property
    def eta_s(self) -> float | None:
        """Seconds left, from the rate of the recent reports (:class:`EtaEstimator`)."""
        return self._eta.update(self.fraction)

    def report(self) -> Report:
        return Report(self.fraction, self.text, self.done, self.total, self.eta_s)

    def span(self, lo: float, hi: float, text: str | None = None) -> Callable[[float, str], None]:
        """A ``(fraction, text)`` callback for a sub-task that covers ``lo..hi`` of this one."""
        def sub_progress(f: float, t: str = "") -> None:
            self(lo + (hi - lo) * min(max(f, 0.0), 1.0), text if text is not None else t)

        return sub_progress

    def _tick(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self.check()
        self._last = now
        if self.callback is not None:
            self.callback(self.report())


def quiet() -> Progress:
    """A Progress that reports nowhere and is never cancelled."""
    return Progress()


def as_progress(value: Progress | ReportCallback | None) -> Progress:
    """Accept a Progress, a callback that takes a :class:`Report`, or None."""
    if isinstance(value, Progress):
        return value
    return Progress(value)


def format_eta(eta_s: float | None) -> str:
    """'about 12 s left', 'about 3 min left', or '' when unknown."""
    if eta_s is None:
        return ""
    if eta_s < 1.5:
        return "almost done"
    if eta_s < 90:
        return f"about {eta_s:.0f} s left"
    if eta_s < 5400:
        return f"about {eta_s / 60:.0f} min left"
    return f"about {eta_s / 3600:.1f} h left"
