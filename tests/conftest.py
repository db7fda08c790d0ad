"""Shared fixtures: every test gets its own STUDIO_HOME, so nothing touches the user's runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Per-test time limits (pytest-timeout; the default, 300 s, is in pyproject.toml): the long tests that are run on
# demand get more. A test's own @pytest.mark.timeout(...) wins.
LONG_TIMEOUTS = {"slow": 900, "benchmark": 1800, "packaging": 1800}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        limits = [s for name, s in LONG_TIMEOUTS.items() if item.get_closest_marker(name) is not None]
        if limits:
            item.add_marker(pytest.mark.timeout(max(limits)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.cuda(devices=N, reason=...)`` skips where torch sees fewer than N CUDA devices. Asked when
    the test is about to run, not as a ``skipif`` at import, so that collecting the tests never imports torch."""
    marker = item.get_closest_marker("cuda")
    if marker is None:
        return
    import torch

    devices = marker.kwargs.get("devices", 1)
    if not torch.cuda.is_available() or torch.cuda.device_count() < devices:
        pytest.skip(marker.kwargs["reason"])


@pytest.fixture(autouse=True)
def studio_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "studio_home"
    monkeypatch.setenv("STUDIO_HOME", str(home))
    monkeypatch.delenv("STUDIO_DATA_DIR", raising=False)
    # studio.app.main sets these for every child it starts (core/host/child_env.py); a test that calls it in this
    # process must not leave them to the tests after it (a `python -c` probe that imports from its folder)
    for name in ("PYTHONSAFEPATH", "PYTHONPATH"):
        monkeypatch.setenv(name, os.environ.get(name, ""))  # recorded as it was (absent or its value): undone after
        if not os.environ[name]:
            monkeypatch.delenv(name)
    return home


@pytest.fixture(autouse=True)
def gc_on_the_gui_thread(request: pytest.FixtureRequest):
    """In a test with a Qt application, cyclic garbage is collected on its thread only, as in the app
    (gui/session/main_thread_gc.py): a collection on a worker thread that destroys a Qt object can deadlock."""
    if not {"qtbot", "qapp"} & set(request.fixturenames):
        yield
        return
    request.getfixturevalue("qapp")
    from studio.gui.session.main_thread_gc import MainThreadGC

    collector = MainThreadGC()
    yield
    collector.stop()
    collector.deleteLater()


def run_cli(*args: str, timeout: float = 240, **kwargs) -> subprocess.CompletedProcess:
    """Run ``python -m studio ARGS`` as a user would, capturing output."""
    return subprocess.run([sys.executable, "-m", "studio", *args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)


# A run of a second or two: 300 moons points, an MLP with one hidden layer of 16, 2 epochs.
TINY_CONFIG = ('[data]\nname = "moons"\nn_samples = 300\n[model]\nname = "mlp"\nwidths = [16]\n'
               '[train]\nepochs = 2\nbatch_size = 32\n')


def wait_for(predicate, timeout: float, what: str) -> None:
    """Poll ``predicate`` until it holds, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def last_json(stdout: str) -> dict:
    """The last stdout line of a ``--json`` command."""
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def queued_runs(tmp_path_factory):
    """Real tiny runs, shared by the queue, compare and Compare-tab tests: a sweep over the learning rate
    (0.003, 0.3 — cancelled at once, 0.03) and one more run with 1 epoch, all queued through the CLI and
    served by the detached scheduler that `studio queue add` starts. Returns (home, env, store, run ids)."""
    from studio.core.runs.queue import RunQueue
    from studio.core.runs.store import RunStore

    home = tmp_path_factory.mktemp("queue_home")
    config = home / "tiny.toml"
    config.write_text(TINY_CONFIG)
    env = dict(os.environ, STUDIO_HOME=str(home))
    proc = run_cli("queue", "sweep", "--config", str(config), "--vary", "optimizer.lr=0.003,0.3,0.03",
                   "--no-start", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    ids = last_json(proc.stdout)["run_ids"]
    assert run_cli("queue", "cancel", ids[1], env=env).returncode == 0
    listing = last_json(run_cli("queue", "list", "--json", env=env).stdout)["queue"]
    assert [(e["run_id"], e["position"]) for e in listing] == [(ids[0], 1), (ids[2], 2)]
    proc = run_cli("queue", "add", "--config", str(config), "--set", "train.epochs=1", "--json", env=env)
    assert proc.returncode == 0, proc.stderr  # this one starts the detached scheduler
    ids.append(last_json(proc.stdout)["run_id"])
    store = RunStore(home)
    wait_for(lambda: all(store.get(i).status in ("finished", "failed") for i in ids[:1] + ids[2:]), 180, "the queue")
    wait_for(lambda: RunQueue(store).lease_holder() is None, 30, "the scheduler to exit")
    return home, env, store, ids


