"""``studio.track``: Studio watches a training script it did not start. Two lines in the script::

    run = studio.track.init(name="resnet-sweep", config={"lr": 1e-3, "batch": 128}, tags=["baseline"])
    run.log({"train/loss": loss, "lr": lr}, step=step)      # ... and run.finish() at the end (or `with`)

The run is an ordinary run of the store (``STUDIO_HOME``, or ``home=``): the run list, the live curves, Compare,
export, the filter language and tags see it as they see a run Studio trained. Logging is buffered (a thread
writes every half second), a kill loses at most that half second, and nothing Studio does stops training: a store
it cannot write is one warning. The Lightning logger and the Hugging Face callback are ``studio.track.lightning``
and ``studio.track.hf`` (imported only when used). No Qt, no torch at import, no GUI.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from studio.track.ranks import current_rank
from studio.track.run import Run, disabled
from studio.track.warn import StudioTrackWarning, warn_once

__all__ = ["Run", "StudioTrackWarning", "init"]

RUN_ID_ENV = "STUDIO_RUN_ID"  # the run every rank of a job logs into (all_ranks=True)


def init(name: str = "", config: Mapping[str, Any] | None = None, tags: Iterable[str] | str | None = None, *,
         home: str | Path | None = None, run_id: str | None = None, all_ranks: bool = False,
         rank: int | None = None, flush_s: float = 0.5) -> Run:
    """Start (or join) a run in the store at ``home`` (``STUDIO_HOME`` by default) and return it.

    ``name``: the run's name (default: the script's file name); ``config``: the script's settings (a dict, nested
    dicts flattened to ``a.b``), shown, compared and filtered like a native run's; ``tags``: words to tag it with.
    In a distributed job only rank 0 logs (the others get a run that records nothing), unless ``all_ranks``: then
    every rank logs into the run ``run_id`` (or ``$STUDIO_RUN_ID``), its values named ``rank{r}/...``. A
    ``run_id`` that exists is joined (its values added), not replaced. ``flush_s``: seconds between writes.
    Never raises because of the store: one warning, and a run that records nothing."""
    rank = current_rank() if rank is None else rank
    run_id = run_id or os.environ.get(RUN_ID_ENV) or None
    if rank != 0 and not all_ranks:
        return disabled(run_id or "")
    if all_ranks and not run_id:
        warn_once("all_ranks", "all_ranks=True needs the run every rank shares: pass run_id=... (the same on every "
                               f"rank) or set ${RUN_ID_ENV}; this rank records nothing")
        return disabled("")
    from studio.core.errors import StudioError

    try:
        return _start(name, config, tags, home, run_id, rank if all_ranks else None, flush_s)
    except StudioError as err:
        warn_once(f"init:{home}", f"cannot start a run in the store ({err}); training goes on unrecorded")
        return disabled(run_id or "")


def _start(name: str, config: Mapping[str, Any] | None, tags: Iterable[str] | str | None, home: Any,
           run_id: str | None, rank: int | None, flush_s: float) -> Run:
    from studio.core.errors import ConfigError, StoreError
    from studio.core.runs.store import RunStore
    from studio.core.runs.tracked import TRACK, create_external_run, read_tracked, write_tracked
    from studio.core.vocab import JobState

    store = RunStore(home)
    name = name or Path(sys.argv[0]).stem or "tracked run"
    words = [tags] if isinstance(tags, str) else list(tags or [])
    info = None
    if run_id:
        try:
            info = store.get(run_id)  # join it
        except ConfigError:
            info = None
    if info is None:
        try:
            info = create_external_run(store, name=name, config=config, tags=words, source=TRACK, run_id=run_id)
        except StoreError:
            if not run_id:
                raise
            info = _await_run(store, run_id)  # another rank made it a moment ago
    store.add_procs(info.id, [os.getpid()])
    if info.status != JobState.RUNNING:
        store.set_status(info.id, JobState.RUNNING.value, "")
    if rank is not None:
        write_tracked(info.dir, {"ranks": {**read_tracked(info.dir).get("ranks", {}), str(rank): os.getpid()}})
    return Run(store, info.id, info.dir, prefix="" if rank is None else f"rank{rank}/", flush_s=flush_s,
               started=info.created)


def _await_run(store: Any, run_id: str, wait_s: float = 10.0) -> Any:
    """The run another process is registering right now (its folder exists before its database row)."""
    from studio.core.errors import ConfigError

    deadline = time.monotonic() + wait_s
    while True:
        try:
            return store.get(run_id)
        except ConfigError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
