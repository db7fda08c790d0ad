"""A run of a script Studio watches: ``studio.track.init`` makes one, ``log`` records values, ``finish`` ends it.

It is an ordinary run of the store (core/runs/tracked.py makes it through the store's own functions): the run list,
the live curves, Compare, export, the filter language and tags treat it like a run Studio trained. Its status is
running while the script runs; finished at ``finish()`` (or when the script ends normally), failed when an
exception leaves the ``with`` block or ends the script, interrupted on Ctrl+C, and interrupted when the process
dies without a word (its pid and heartbeat are recorded, as rank 0's are).
"""

from __future__ import annotations

import atexit
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from studio.core.runs.store import RunStore
from studio.core.vocab import JobState
from studio.track.values import clean_name, quick_value
from studio.track.warn import warn_once
from studio.track.writer import Writer

_live: set[Run] = set()  # runs a script has not finished (held even when the script dropped them): ended at exit
_exc_seen: list[BaseException] = []


class Run:
    """A tracked run. ``log``, ``finish`` and ``save_model`` never raise because of Studio: a store that cannot
    be written is one warning (``StudioTrackWarning``), and training goes on."""

    def __init__(self, store: RunStore | None, run_id: str, run_dir: Path | None, *, prefix: str = "",
                 flush_s: float = 0.5, started: float | None = None) -> None:
        self.id, self.dir = run_id, run_dir
        self.store = store
        self.prefix = prefix  # "rank1/" when every rank of a job logs into one run
        self._names: dict[Any, str | None] = {}
        self._steps: dict[str, int] = {}
        self._next_step = 0
        self._started = started if started is not None else time.time()
        self.finished = store is None
        self.writer = Writer(store, run_id, flush_s=flush_s) if store is not None else None
        if store is not None:
            _live.add(self)

    @property
    def enabled(self) -> bool:
        """Whether this process records anything (False on a rank that does not log, or a store that failed)."""
        return self.writer is not None

    # --- logging ----------------------------------------------------------------------------------------------
    def log(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
        """Record ``{name: value}`` at ``step`` (None: one past the last step logged). Values are numbers or
        one-element tensors; NaN and inf are kept. Returns at once: the values are written by a thread."""
        if self.writer is None or self.finished:
            return
        if step is None:
            step = self._next_step
        else:
            try:
                step = int(step)
            except (TypeError, ValueError):
                warn_once(f"step:{step!r}", f"step {step!r} is not a whole number; the values are logged at step "
                                            f"{self._next_step}")
                step = self._next_step
        self._next_step = step + 1
        wall = time.time()
        rows = []
        for key, value in metrics.items():
            name = self._names.get(key, "")
            if name == "":
                name = self._names[key] = self._name(key)
            if name is None:
                continue
            kept = quick_value(name, value)
            if kept is None:
                continue
            last = self._steps.get(name)
            if last is not None and step < last:
                warn_once(f"back:{name}", f"{name!r} went back from step {last} to step {step}; both are kept, "
                                          "and the curve is drawn in step order")
            self._steps[name] = step
            rows.append((step, name, kept, wall))
        if rows:
            self.writer.put(rows)

    def _name(self, key: Any) -> str | None:
        name = clean_name(key)
        return None if name is None else self.prefix + name

    def set_config(self, config: Mapping[str, Any]) -> None:
        """Add settings to the run's (a Lightning module's hyperparameters, a Trainer's arguments): flattened like
        ``init``'s ``config``; a setting given again is replaced."""
        if self.store is None or self.finished:
            return
        from studio.core.runs.tracked import read_tracked, settings_of, write_tracked

        settings = settings_of(config)
        try:
            self.store.record_settings(self.id, settings)
        except Exception as err:  # noqa: BLE001 - training goes on
            warn_once(f"config:{self.id}", f"cannot record the run's settings ({err})")
            return
        if self.dir is not None:
            old = read_tracked(self.dir).get("settings", {})
            write_tracked(self.dir, {"settings": {**old, **{k: str(v) if isinstance(v, float) and v != v else v
                                                            for k, v in settings.items()}}})

    def flush(self) -> None:
        """Write what is buffered now (``log`` returns before the values are on disk)."""
        if self.writer is not None:
            self.writer.flush()

    # --- ending -----------------------------------------------------------------------------------------------
    def finish(self, status: str = JobState.FINISHED.value, message: str = "") -> None:
        """End the run: write what is buffered, then record ``status`` (finished; failed or interrupted when the
        script says so) with a summary of each metric's last value. A second call does nothing."""
        if self.finished:
            return
        self.finished = True
        _live.discard(self)
        assert self.writer is not None and self.store is not None
        self.writer.close()
        from studio.core.runs.tracked import summary_of

        try:
            summary = summary_of(self.writer.last, steps=self.writer.last_step, seconds=time.time() - self._started)
            # several ranks of one run: each adds its own (rank-named) values to the summary
            self.store.set_status(self.id, status, message, summary=summary)  # type: ignore[arg-type]
            self.store.write_curve_cache(self.id)
        except Exception as err:  # noqa: BLE001 - the script's own end must not fail because of Studio
            warn_once(f"finish:{self.id}", f"cannot record the end of run {self.id} ({err})")
        finally:
            self.store.close()

    def __enter__(self) -> Run:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if err is None:
            self.finish()
        else:
            self.finish(*_status_for(err))

    # --- models -----------------------------------------------------------------------------------------------
    def save_model(self, model: Any, example_batch: Any = None, *, step: int | None = None,
                   init: Mapping[str, Any] | None = None) -> Path | None:
        """Register the model's weights (a checkpoint at ``step``, and ``final.pt``), its code (the file its class
        is defined in, copied) and ``example_batch`` (``(inputs, targets)``: the data Studio's analyses use), so
        the Landscape, Sharpness, Evaluation and noise-scale views work on it. ``init``: the arguments the class
        is built with (JSON values). Returns the checkpoint written (None when it could not be)."""
        if self.dir is None:
            return None
        from studio.track.model import save_model

        try:
            return save_model(self.dir, model, example_batch, step=self._next_step - 1 if step is None else step,
                              init=init)
        except Exception as err:  # noqa: BLE001 - training goes on; one line says why
            warn_once(f"save:{self.id}:{type(err).__name__}", f"cannot save the model into run {self.id}: {err}")
            return None


def _status_for(err: BaseException) -> tuple[str, str]:
    if isinstance(err, KeyboardInterrupt):
        return JobState.INTERRUPTED.value, "interrupted: the script was stopped (Ctrl+C)"
    line = f"{type(err).__name__}: {err}".strip().rstrip(":")
    return JobState.FAILED.value, f"the script failed: {line}"


def _end_all() -> None:
    """At interpreter exit: finish the runs a script did not (failed if an exception ended it)."""
    status = _status_for(_exc_seen[-1]) if _exc_seen else (JobState.FINISHED.value, "")
    for run in list(_live):
        run.finish(*status)


def _hook(kind: type[BaseException], err: BaseException, tb: TracebackType | None) -> None:
    _exc_seen.append(err)
    _previous_hook(kind, err, tb)


_previous_hook = sys.excepthook
sys.excepthook = _hook
atexit.register(_end_all)


def disabled(run_id: str = "") -> Run:
    """A run that records nothing (a rank that does not log; a store that cannot be opened)."""
    return Run(None, run_id, None)


def _tags(tags: Iterable[str] | str | None) -> list[str]:
    if tags is None:
        return []
    return [tags] if isinstance(tags, str) else list(tags)
