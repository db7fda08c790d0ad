"""Every "module:function" string the GUI hands to a child process or imports lazily names a real callable:
the task catalog (``core/contracts/tasks.py``), every registry builder (``core/contracts/registry.py``) and every
extra tab (``gui/tabs.EXTRA_TABS``). A typo fails here, not in a person's window."""

from __future__ import annotations

import inspect
import pickle

import pytest

from studio.core.contracts import tasks
from studio.core.targets import resolve_target
from studio.engine.jobs.process_job import task_job


@pytest.mark.parametrize("task", tasks.TASKS, ids=lambda t: f"{t.target}[{t.label}]")
def test_every_task_target_is_a_run_entry(task: tasks.Task) -> None:
    fn = resolve_target(task.target)
    assert callable(fn)
    params = inspect.signature(fn).parameters
    assert "progress" in params
    if task is not tasks.READY:  # the start-up probe takes no request
        assert "request" in params, f"{task.target} is not a run(request, progress) entry"
    if task.frames:
        assert "emit" in params


def test_task_jobs_carry_their_request_by_pickle() -> None:
    from studio.core.contracts.compression import CompressRequest

    job = task_job(tasks.COMPRESS, CompressRequest("/runs/x", prune_amount=0.5))
    assert (job.target, job.kind, job.label) == (tasks.COMPRESS.target, "compress", "compression")
    assert pickle.loads(pickle.dumps(job.kwargs)) == {"request": CompressRequest("/runs/x", prune_amount=0.5)}


def test_each_request_type_names_one_task() -> None:
    """Session.start(request) needs no other word: every task but the start-up probe has a request type of its own."""
    assert set(tasks.TASK_OF_REQUEST.values()) == set(tasks.TASKS) - {tasks.READY}
    assert len(set(tasks.TASK_OF_REQUEST.values())) == len(tasks.TASK_OF_REQUEST)  # no two types share a task
    for name, task in tasks.TASK_OF_REQUEST.items():
        request_type = resolve_target(name)
        assert request_type.__module__.startswith("studio.core.contracts."), request_type
        assert tasks.task_for(request_type.__new__(request_type)) is task  # the type's own name finds its task
        hints = inspect.signature(resolve_target(task.target)).parameters["request"].annotation
        assert request_type.__name__ in str(hints), f"{task.target} does not take a {request_type.__name__}"
    from studio.core.contracts.compression import SweepRequest
    from studio.core.contracts.landscape import LandscapeJobRequest, SharpnessJobRequest

    assert tasks.task_for(SweepRequest("/runs/x")) is tasks.SWEEP
    assert tasks.task_for(LandscapeJobRequest("/runs/x")) is tasks.LANDSCAPE
    assert tasks.task_for(SharpnessJobRequest("/runs/x")) is tasks.SHARPNESS
    with pytest.raises(TypeError, match="no background task takes a dict"):
        tasks.task_for({"kind": "2d"})


def _registries() -> list:
    from studio.core.datasets import DATASETS
    from studio.core.demos.catalog import DEMOS
    from studio.core.models import MODELS
    from studio.core.optim import OPTIMIZERS, SCHEDULES

    return [DATASETS, MODELS, OPTIMIZERS, SCHEDULES, DEMOS]


def test_every_registry_builder_resolves() -> None:
    checked = 0
    for registry in _registries():
        for entry in registry:
            if entry.builder:
                assert callable(entry.load_builder()), f"{registry.kind} {entry.name}: {entry.builder}"
                checked += 1
    assert checked > 20


def test_every_extra_tab_resolves_to_a_widget_class() -> None:
    from studio.gui.tabs import EXTRA_TABS

    for spec in EXTRA_TABS:
        cls = resolve_target(spec.target)
        assert inspect.isclass(cls), f"{spec.title}: {spec.target}"
    assert len({spec.id for spec in EXTRA_TABS}) == len(EXTRA_TABS)  # ids are unique
    assert len({spec.title for spec in EXTRA_TABS}) == len(EXTRA_TABS)
