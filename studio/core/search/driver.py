"""The search's driver: Optuna's ask-and-tell over Studio's own queue. Optuna proposes a trial's settings; the driver
queues it as a run (tagged ``search:STUDY``, named by the naming rule) and the queue's scheduler starts it when
its devices are free; the driver follows the run's metric in the run store as it is logged, reports each epoch's
value to the pruner (step = epoch), and when the pruner says so stops the run through the queue (it checkpoints
and is marked ``pruned``: resumable). A run that ends is told to Optuna: its last value (complete), or failed.

A search survives a restart: the study is in Optuna's storage and the runs in the queue; a driver started again
on the same study follows the trials still running and asks for the rest of the budget. Stopping the driver stops
its trials in flight (they do not count against the budget). Torch-free and Qt-free; Optuna is imported by
``study.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.core.contracts.progress import ENDED, Cancelled
from studio.core.errors import ConfigError
from studio.core.runs.queue import RunQueue
from studio.core.runs.run_lock import RunLock
from studio.core.runs.store import RunStore
from studio.core.search.study import SearchSpec, create_or_continue, import_optuna
from studio.core.vocab import JobState

POLL_S = 0.25  # the store is read this often for new metric points and ended runs
RUN_ID = "run_id"  # a trial's user attribute: the run that trains it
ABANDONED = "abandoned"  # a trial's user attribute: stopped with the driver (it does not count against the budget)
SEARCHES = "searches"  # STUDIO_HOME/searches/<study>/: the driver's lock


def search_tag(study: str) -> str:
    """The tag of a study's runs (``studio runs --filter tag:search:NAME``)."""
    return f"search:{study}"


@dataclass
class InFlight:
    """A trial whose run is queued or training: the Optuna trial, its run, how far its metric has been read."""

    trial: Any
    run_id: str
    rowid: int = 0  # the last metric row read
    points: int = 0  # values of the metric seen (epochs, for a val/ metric)
    reported: int = 0  # values reported to Optuna (a trial followed again had some already)
    last: float | None = None


@dataclass
class SearchOutcome:
    """How a search (or this part of it) went."""

    study: str
    storage: str
    trials: int = 0  # in the study (abandoned ones left out)
    complete: int = 0
    pruned: int = 0
    failed: int = 0
    best_value: float | None = None
    best_params: dict[str, Any] = field(default_factory=dict)
    best_run_id: str | None = None
    best_trial: int | None = None
    epochs_trained: int = 0  # epochs the finished and pruned trials trained
    epochs_full: int = 0  # epochs they would have trained without pruning
    seconds: float = 0.0
    continued: bool = False
    stopped: bool = False
    repeat_run_ids: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"study": self.study, "storage": self.storage, "trials": self.trials, "complete": self.complete,
                "pruned": self.pruned, "failed": self.failed, "best_value": self.best_value,
                "best_params": self.best_params, "best_run_id": self.best_run_id, "best_trial": self.best_trial,
                "epochs_trained": self.epochs_trained, "epochs_full": self.epochs_full,
                "compute_fraction": (self.epochs_trained / self.epochs_full) if self.epochs_full else None,
                "seconds": round(self.seconds, 2), "continued": self.continued, "stopped": self.stopped,
                "repeat_run_ids": self.repeat_run_ids}


class SearchDriver:
    """Drive ``spec``'s study on ``store``'s queue. ``start_scheduler(store)`` makes sure a scheduler serves the
    queue (the engine's ``ensure_scheduler``; a test may serve it itself)."""

    def __init__(self, store: RunStore, spec: SearchSpec, start_scheduler: Callable[[RunStore], Any] | None = None,
                 poll_s: float = POLL_S, log: Callable[[str], None] | None = None) -> None:
        self.store, self.spec = store, spec
        self.queue = RunQueue(store)
        self.start_scheduler = start_scheduler
        self.poll_s = poll_s
        self.log = log or (lambda _text: None)
        self.flying: list[InFlight] = []
        self.study: Any = None
        self.outcome = SearchOutcome(spec.name, str(Path(store.home) / "search.db"))
        self._lock = RunLock(Path(store.home) / SEARCHES / spec.name)

    # --- the loop ----------------------------------------------------------------------------
    def run(self, progress: Any = None, should_stop: Callable[[], bool] = lambda: False,
            on_change: Callable[[Any], None] | None = None) -> SearchOutcome:
        """Search until the budget is spent and every trial has ended (or ``should_stop``); the outcome."""
        if not self._lock.acquire():
            raise ConfigError(f"the study {self.spec.name!r} is being searched by another process; wait for it to "
                              "end or stop it (its trials are in `studio queue list`)")
        began = time.monotonic()
        try:
            self.study, self.outcome.continued = create_or_continue(self.store.home, self.spec)
            self._pick_up()
            while True:
                if should_stop():
                    self._abandon()
                    self.outcome.stopped = True
                    break
                changed = self._follow()
                time_left = self.spec.timeout_s is None or time.monotonic() - began < self.spec.timeout_s
                while time_left and self._trials_left() > 0 and len(self.flying) < self.spec.parallel:
                    self._ask()
                    changed = True
                if changed and on_change is not None:
                    on_change(self.study)
                self._report(progress, began)
                if not self.flying and (not time_left or self._trials_left() <= 0):
                    break
                time.sleep(self.poll_s)
        except Cancelled:
            self._abandon()
            self.outcome.stopped = True
        finally:
            self._lock.release()
            self.queue.close()
        self._summarise(time.monotonic() - began)
        if not self.outcome.stopped and self.spec.repeat_seeds and self.outcome.best_params:
            self.outcome.repeat_run_ids = self.repeat_best(self.spec.repeat_seeds)
        return self.outcome

    def _trials_left(self) -> int:
        if self.spec.trials is None:
            return 1 << 30
        used = [t for t in self.study.get_trials(deepcopy=False) if not t.user_attrs.get(ABANDONED)]
        return self.spec.trials - len(used)

    def _pick_up(self) -> None:
        """A continued study: follow its trials whose runs are still queued or training; fail the others."""
        optuna = import_optuna()
        running = self.study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
        for frozen in running:
            run_id = frozen.user_attrs.get(RUN_ID)
            try:
                self.store.get(run_id) if run_id else None
            except ConfigError:
                run_id = None
            if not run_id:
                self.study.tell(frozen.number, state=optuna.trial.TrialState.FAIL, skip_if_finished=True)
                continue
            trial = optuna.trial.Trial(self.study, frozen._trial_id)
            self.flying.append(InFlight(trial, run_id, reported=len(frozen.intermediate_values)))
            self.log(f"trial {frozen.number}: following run {run_id} again")

    def _ask(self) -> None:
        optuna = import_optuna()
        trial = self.study.ask(self.spec.space.distributions())
        try:
            config = self.spec.space.apply(self.spec.base, trial.params)
            info = self.queue.add(config)
        except ConfigError as err:  # these values make no run (the model cannot take them): a failed trial
            trial.set_user_attr("error", str(err))
            self.study.tell(trial, state=optuna.trial.TrialState.FAIL)
            self.log(f"trial {trial.number}: {err}")
            return
        self.store.add_tags([info.id], [search_tag(self.spec.name)])
        trial.set_user_attr(RUN_ID, info.id)
        self.flying.append(InFlight(trial, info.id))
        self.log(f"trial {trial.number}: queued run {info.id} ({info.name})")
        if self.start_scheduler is not None:
            self.start_scheduler(self.store)

    def _follow(self) -> bool:
        """Read each trial's new metric points, prune the trials the pruner picks, tell those whose run ended.
        True if a trial ended."""
        ended = False
        for flight in list(self.flying):
            status = self.store.get(flight.run_id).status  # before the rows: no row is logged after an end
            for rowid, _step, name, value, _wall in self.store.metric_rows_after(flight.run_id, flight.rowid):
                flight.rowid = rowid
                if name != self.spec.metric:
                    continue
                flight.points += 1
                flight.last = float(value)
                if flight.points > flight.reported:
                    flight.trial.report(float(value), flight.points)
                    flight.reported = flight.points
                if status not in ENDED and flight.trial.should_prune():
                    self._prune(flight)
                    ended = True
                    break
            else:
                if status in (*ENDED, JobState.INTERRUPTED):
                    self._settle(flight, status)
                    ended = True
        return ended

    def _prune(self, flight: InFlight) -> None:
        optuna = import_optuna()
        try:
            self.queue.cancel(flight.run_id, prune=True)
        except ConfigError:  # it ended meanwhile: it stays as it ended
            pass
        flight.trial.set_user_attr("epochs", flight.points)
        self.study.tell(flight.trial, state=optuna.trial.TrialState.PRUNED)
        self.flying.remove(flight)
        self.log(f"trial {flight.trial.number}: pruned after {flight.points} epoch(s) at {flight.last:.4g}; run "
                 f"{flight.run_id} stops with a checkpoint")

    def _settle(self, flight: InFlight, status: str) -> None:
        optuna = import_optuna()
        self.flying.remove(flight)
        flight.trial.set_user_attr("epochs", flight.points)
        if status in (JobState.FINISHED, JobState.STOPPED, JobState.PRUNED) and flight.last is not None:
            self.study.tell(flight.trial, flight.last)
            self.log(f"trial {flight.trial.number}: {self.spec.metric} = {flight.last:.4g}")
            return
        info = self.store.get(flight.run_id)
        reason = info.message or status
        flight.trial.set_user_attr("error", reason)
        self.study.tell(flight.trial, state=optuna.trial.TrialState.FAIL)
        self.log(f"trial {flight.trial.number}: run {flight.run_id} {status}: {reason}")
        if status == JobState.FINISHED:  # it trained but never logged the metric: every trial would do the same
            logged = sorted(self.store.metrics(flight.run_id))
            self._abandon()
            raise ConfigError(f"run {flight.run_id} finished without logging {self.spec.metric} (it logs "
                              f"{', '.join(logged) or 'nothing'}); search a metric the runs log")

    def _abandon(self) -> None:
        """Stop the trials in flight (waiting runs cancelled, training ones stopped with a checkpoint); they do not
        count against the budget of a continued search."""
        optuna = import_optuna()
        for flight in self.flying:
            try:
                self.queue.cancel(flight.run_id)
            except ConfigError:
                pass
            flight.trial.set_user_attr(ABANDONED, True)
            self.study.tell(flight.trial, state=optuna.trial.TrialState.FAIL, skip_if_finished=True)
        self.flying.clear()

    def _report(self, progress: Any, began: float) -> None:
        if progress is None:
            return
        optuna = import_optuna()
        trials = [t for t in self.study.get_trials(deepcopy=False) if not t.user_attrs.get(ABANDONED)]
        done = [t for t in trials if t.state != optuna.trial.TrialState.RUNNING]
        if self.spec.trials is not None:
            fraction = len(done) / self.spec.trials
        else:
            fraction = (time.monotonic() - began) / float(self.spec.timeout_s or 1)
        pruned = sum(t.state == optuna.trial.TrialState.PRUNED for t in trials)
        best = best_of(self.study)
        text = f"{len(done)} of {self.spec.trials or '?'} trials done, {len(self.flying)} running"
        text += f", {pruned} pruned" if pruned else ""
        if best is not None:
            text += f"; best {self.spec.metric} {best.value:.4g} (trial {best.number})"
        progress(min(1.0, max(0.0, fraction)), text)

    def _summarise(self, seconds: float) -> None:
        optuna = import_optuna()
        state = optuna.trial.TrialState
        trials = [t for t in self.study.get_trials(deepcopy=False) if not t.user_attrs.get(ABANDONED)]
        out = self.outcome
        out.trials = len(trials)
        out.complete = sum(t.state == state.COMPLETE for t in trials)
        out.pruned = sum(t.state == state.PRUNED for t in trials)
        out.failed = sum(t.state == state.FAIL for t in trials)
        counted = [t for t in trials if t.state in (state.COMPLETE, state.PRUNED)]
        out.epochs_trained = sum(int(t.user_attrs.get("epochs", len(t.intermediate_values))) for t in counted)
        out.epochs_full = len(counted) * self.spec.base.train.epochs
        best = best_of(self.study)
        if best is not None:
            out.best_value, out.best_params, out.best_trial = best.value, dict(best.params), best.number
            out.best_run_id = best.user_attrs.get(RUN_ID)
        out.seconds = seconds

    # --- after the search ----------------------------------------------------------------------
    def repeat_best(self, seeds: list[int]) -> list[str]:
        """Queue the best trial's settings once per seed (a seed group); their run ids."""
        return queue_repeats(self.store, self.spec, best_params(self.study), seeds, self.start_scheduler)


def best_of(study: Any) -> Any | None:
    """The best complete trial, None before any."""
    try:
        return study.best_trial
    except ValueError:
        return None


def best_params(study: Any) -> dict[str, Any]:
    best = best_of(study)
    return dict(best.params) if best is not None else {}


def queue_repeats(store: RunStore, spec: SearchSpec, params: dict[str, Any], seeds: list[int],
                  start_scheduler: Callable[[RunStore], Any] | None = None) -> list[str]:
    """Queue ``params`` over the search's base config once per seed; ConfigError when there is nothing to repeat."""
    if not params:
        raise ConfigError(f"the study {spec.name!r} has no complete trial yet: nothing to repeat")
    queue = RunQueue(store)
    try:
        config = spec.space.apply(spec.base, params)
        ids = []
        for seed in seeds:
            info = queue.add(config.with_overrides([f"train.seed={seed}"]))
            store.add_tags([info.id], [search_tag(spec.name)])
            ids.append(info.id)
    finally:
        queue.close()
    if start_scheduler is not None:
        start_scheduler(store)
    return ids
