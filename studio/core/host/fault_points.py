"""Test-only fault injection: named points in Studio's writers where a test makes the process pause or kill itself,
to prove what survives a crash there (tests/reliability/test_crash_consistency.py, test_forced_stop.py).

``STUDIO_TEST_FAULT=POINT:N:ACTION[,…]``: at the N-th time this process reaches POINT, ACTION happens: ``kill`` (a
SIGKILL of this process, as the kernel's out-of-memory killer would end it), ``killgroup`` (a SIGKILL of this
process's whole group at once, as a power cut ends a run: the launcher and every rank; only ever used where the
test started the run in a session of its own) or ``sleep=S`` (it stalls S seconds, as a process on an overloaded
machine does). Never set outside tests; unset, ``reached`` is one
test of an empty dict. The points: ``checkpoint.write`` (the checkpoint's bytes written, before the rename),
``metrics.append`` (half of a batch of metrics.csv lines written), ``curve.pack`` (inside the curve pack's
transaction), ``curve.chunk``, ``curve.merge`` and ``curve.convert`` (inside a curve chunk's), ``curve.convert.read``
(between a conversion's reads and its writes: a test runs another writer there), ``store.migrate`` (between a
migration's statements), ``evaluate.end`` (the end-of-run evaluation).
"""

from __future__ import annotations

import os
import signal
import time

ENV = "STUDIO_TEST_FAULT"


def _plan(text: str) -> dict[str, tuple[int, str]]:
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        point, _, rest = item.partition(":")
        count, _, action = rest.partition(":")
        if point and count.isdigit() and action:
            out[point] = (int(count), action)
    return out


PLAN = _plan(os.environ.get(ENV, ""))
_seen: dict[str, int] = {}


def reached(point: str) -> None:
    """Mark that this process reached ``point``; at the planned time, stall or die there."""
    if not PLAN or point not in PLAN:
        return
    _seen[point] = _seen.get(point, 0) + 1
    count, action = PLAN[point]
    if _seen[point] != count:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "killgroup":
        os.killpg(os.getpgrp(), signal.SIGKILL)
    elif action.startswith("sleep="):
        time.sleep(float(action.partition("=")[2]))
