"""The run list with 1,000 runs (issue 25, item 5): a refresh, a filter keystroke and a sort, against the run list
as it was before (the file at BEFORE, loaded beside today's, reading the same store with that day's settings
parser), side by side. Before, there was no filter box or sort: a keystroke there would have been a refresh.

Run: ``python -m pytest tests/benchmarks/test_run_list_scale.py -m benchmark -s``
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore

N_RUNS = 1000
BEFORE = "1b57f23d885c4ca5acc441d465f99f4cae7994b0"  # main before the run list's filter, sort and tags
ROOT = Path(__file__).resolve().parents[2]


def make_store(home: Path, n: int) -> RunStore:
    """``n`` runs through the real RunStore: a config, five metric rows, most finished with a summary, some tagged."""
    store = RunStore(home)
    rng = random.Random(0)
    for i in range(n):
        config = RunConfig().with_overrides([f"optimizer.lr={rng.choice([0.1, 0.03, 0.01, 0.003])}",
                                             f"model.dropout={rng.choice([0.0, 0.1, 0.2])}", f"train.seed={i}"])
        run = store.create_run(config)
        store.log_metrics(run.id, [(s, "train/loss", 1.0 / s, time.time()) for s in range(1, 6)])
        if i % 7:
            store.set_status(run.id, "finished", summary={"test_acc": rng.random(), "val_acc": rng.random(),
                                                          "steps": rng.randint(10, 5000), "epochs": rng.randint(1, 20)})
        if i % 10 == 0:
            store.add_tags([run.id], ["baseline"])
    return store


def old_run_list_class() -> type | None:
    """The RunList class of ``BEFORE`` (None when git or that commit is not at hand)."""
    try:
        source = subprocess.run(["git", "show", f"{BEFORE}:studio/gui/panels/run_list.py"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("run_list_before")
    sys.modules[module.__name__] = module  # its dataclass looks itself up there
    exec(compile(source, f"{BEFORE[:7]}:studio/gui/panels/run_list.py", "exec"), module.__dict__)
    return module.RunList


def old_all_params(store: RunStore) -> dict[str, dict]:
    """``RunStore.all_params`` as it was at BEFORE: one ``json.loads`` per setting."""
    out: dict[str, dict] = {}
    for run_id, key, value in store._db.execute("SELECT run_id, key, value FROM params").fetchall():
        out.setdefault(run_id, {})[key] = json.loads(value)
    return out


def timed(qapp, action, repeat: int = 5) -> float:
    """The median seconds of ``action`` followed by the paint it causes."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        action()
        qapp.processEvents()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


@pytest.mark.benchmark
def test_run_list_with_a_thousand_runs(qapp, studio_home):
    from studio.gui.panels.run_list import RunList
    from tests.gui.conftest import new_session

    t = time.perf_counter()
    store = make_store(studio_home, N_RUNS)
    made_s = time.perf_counter() - t
    session = new_session(store)
    try:
        new = RunList(session)
        new.resize(1100, 700)
        new.show()
        qapp.processEvents()
        refresh = timed(qapp, new.refresh)

        def uncached() -> None:  # as after a settings change: the settings and the run names read again
            new._params_seen = ()
            new.refresh()

        refresh_uncached = timed(qapp, uncached)
        words = "tag:baseline test_acc>0.5"
        keystrokes = []
        for i in range(1, len(words) + 1):
            keystrokes.append(timed(qapp, lambda n=i: new.filter_box.setText(words[:n]), repeat=1))
        shown = len(new.shown_ids())
        new.filter_box.clear()
        sorts = {}
        for title in ("Test acc", "Run", "Started"):
            for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
                sorts[f"{title} {order.name[:-5].lower()}"] = timed(qapp, lambda c=title, o=order: new.sort(c, o), 3)
        new.close()

        Old = old_run_list_class()
        old_refresh = None
        if Old is not None:
            session.store.all_params = lambda: old_all_params(store)  # type: ignore[method-assign]
            old = Old(session)
            old.resize(1100, 700)
            old.show()
            qapp.processEvents()
            old_refresh = timed(qapp, old.refresh)
            assert old.tree.topLevelItemCount() == N_RUNS
            old.close()
            del session.store.all_params
    finally:
        session.shutdown()

    ms = 1000
    key = statistics.median(keystrokes)
    print(f"\n{N_RUNS:,} runs made through the RunStore in {made_s:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if old_refresh is not None:
        print(f"refresh:           before {old_refresh * ms:7.1f} ms   after {refresh * ms:7.1f} ms   "
              f"({old_refresh / refresh:.1f}x faster); after a settings change {refresh_uncached * ms:.1f} ms "
              f"({old_refresh / refresh_uncached:.1f}x)")
        print(f"filter keystroke:  before {old_refresh * ms:7.1f} ms (no filter box: a refresh)   after median "
              f"{key * ms:.1f} ms, worst {max(keystrokes) * ms:.1f} ms ({old_refresh / key:.0f}x) "
              f"over {len(words)} keystrokes of {words!r} ({shown} runs shown)")
    else:
        print(f"refresh {refresh * ms:.1f} ms; filter keystroke median {key * ms:.1f} ms, worst "
              f"{max(keystrokes) * ms:.1f} ms (the run list at {BEFORE[:7]} could not be loaded: no git)")
    print("sort (before: none):  " + ",  ".join(f"{k} {v * ms:.1f} ms" for k, v in sorts.items()))
    assert shown > 0 and len(new.run_ids()) == N_RUNS
