"""Follow the run store for what this window did not start: runs the queue's scheduler (or another window, or
``studio train``) starts and ends, and the new metric rows of the selected ones, so their curves grow live.

One timer, once a second: one small query (``RunQueue.changes_token``) tells whether any run changed; the selected
runs that are in progress and are not this window's jobs get their rows logged since the last look.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from PySide6.QtCore import QObject, QTimer

from studio.core.errors import StudioError
from studio.core.runs.store import ENDED

INTERVAL_MS = 1000


class StoreFollower(QObject):
    def __init__(self, session: Any) -> None:
        super().__init__(session)
        self.session = session
        self._token: tuple | None = None
        try:  # what the window shows now: a run another process adds before the first tick is a change
            self._token = session.queue.changes_token()
        except (sqlite3.DatabaseError, StudioError):
            pass
        self._seen: dict[str, int] = {}  # selected run → last metric rowid handed on
        # connected before the window's own handler: the rows it loads on selection are then never missed
        # (a row read twice is dropped by the curves, which skip steps they have)
        session.selection_changed.connect(self._selected)
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _selected(self, run_ids: list[str]) -> None:
        # where to start following: the store's newest row (one seek; a run's own newest row would walk its whole
        # index: 3 s for 50 runs of 20k steps). The curves read everything up to the moment they load.
        top = self.session.store.max_metric_rowid()
        self._seen = {r: top for r in run_ids}

    def check(self) -> None:
        """Emit ``runs_changed`` when the store changed and ``metrics`` for the followed runs' new rows. A store
        on a network filesystem can be briefly unreadable while another machine writes it: try at the next tick."""
        try:
            self._check()
        except (sqlite3.DatabaseError, StudioError):
            pass

    def _check(self) -> None:
        token = self.session.queue.changes_token()
        if token != self._token:
            self._token = token
            self.session.runs_changed.emit()
        store = self.session.store
        top = store.max_metric_rowid()  # read first: a row committed after it has a higher rowid
        for run_id, after in list(self._seen.items()):
            if run_id in self.session.jobs:
                continue  # the bridge streams this window's own runs
            rows = store.recent_metric_rows(run_id, after)
            self._seen[run_id] = max(top, rows[-1][0] if rows else after)  # stays recent while the run is quiet
            if rows:
                self.session.metrics.emit(run_id, [r[1:] for r in rows])
            elif store.get(run_id).status in ENDED:
                del self._seen[run_id]
