"""The search driver over the real queue, scheduler and store with fake runs (tests/unit/search_fakes.py): Optuna's
ask-and-tell, the pruner fed each epoch's value from the store, pruned runs stopped through the queue and marked
pruned (resumable), the study in Optuna's SQLite storage (opened by optuna.load_study), a restart that continues
the study, a stop that does not count against the budget, and the best settings repeated over seeds."""

from __future__ import annotations

import optuna
import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.runs.seed_groups import seed_groups
from studio.core.runs.store import RunStore
from studio.core.search.driver import SearchDriver, search_tag
from studio.core.search.report import study_report
from studio.core.search.space import parse_space
from studio.core.search.study import SearchSpec, storage_url
from tests.unit.search_fakes import FakeQueueServer

BASE = RunConfig().with_overrides(["data.name=moons", "train.epochs=9"])


def spec(name: str = "s", **kw) -> SearchSpec:
    values = {"trials": 8, "sampler": "random", "pruner": "asha", **kw}
    return SearchSpec(name, parse_space(["optimizer.lr=1e-5..1e1"], BASE), BASE, **values)


def test_asha_prunes_bad_trials_through_the_queue_and_the_study_is_a_plain_optuna_storage(studio_home) -> None:
    store = RunStore(studio_home)
    server = FakeQueueServer()
    outcome = SearchDriver(store, spec(), server, poll_s=0.005).run()
    server.join()
    assert outcome.trials == 8 and outcome.complete + outcome.pruned == 8 and outcome.pruned >= 2
    study = optuna.load_study(study_name="s", storage=storage_url(studio_home))  # what optuna-dashboard opens
    runs = {t.number: store.get(t.user_attrs["run_id"]) for t in study.trials}
    for t in study.trials:
        run = runs[t.number]
        assert search_tag("s") in run.tags
        if t.state == optuna.trial.TrialState.PRUNED:
            assert run.status == "pruned" and run.resumable  # stopped with its checkpoint
            assert len(t.intermediate_values) < 9
        else:
            assert t.state == optuna.trial.TrialState.COMPLETE and run.status == "finished"
            assert t.value == pytest.approx(max(t.intermediate_values.values()))  # its last epoch's val/acc
    best = max((t for t in study.trials if t.value is not None and t.state.name == "COMPLETE"), key=lambda t: t.value)
    assert outcome.best_value == best.value and outcome.best_run_id == best.user_attrs["run_id"]
    assert outcome.epochs_trained < outcome.epochs_full == 9 * 8  # pruning saved compute


def test_a_restart_continues_the_study_and_its_trials_in_flight(studio_home) -> None:
    store = RunStore(studio_home)
    server = FakeQueueServer()
    calls = []

    def crash() -> bool:  # the driver's process dies while a trial trains: nothing is told, nothing stopped
        calls.append(1)
        if len(calls) > 20:
            raise RuntimeError("killed")
        return False

    with pytest.raises(RuntimeError):
        SearchDriver(store, spec(trials=4, pruner="none"), server, poll_s=0.005).run(should_stop=crash)
    study = optuna.load_study(study_name="s", storage=storage_url(studio_home))
    left_running = [t for t in study.trials if t.state == optuna.trial.TrialState.RUNNING]
    assert len(left_running) == 1 and len(study.trials) < 4
    outcome = SearchDriver(store, spec(trials=4, pruner="none"), server, poll_s=0.005).run()
    server.join()
    assert outcome.continued and outcome.trials == 4 and outcome.complete == 4
    again = study.trials  # re-read
    del again
    study = optuna.load_study(study_name="s", storage=storage_url(studio_home))
    picked = study.trials[left_running[0].number]
    assert picked.state == optuna.trial.TrialState.COMPLETE  # the trial in flight was followed to its end
    assert len(picked.intermediate_values) == 9


def test_a_stopped_search_stops_its_trials_and_they_do_not_count(studio_home) -> None:
    store = RunStore(studio_home)
    server = FakeQueueServer()

    def training() -> bool:  # stop once the first trial's run has logged an epoch
        return bool(server.launched) and bool(store.metrics(server.launched[0]))

    outcome = SearchDriver(store, spec(trials=3, pruner="none"), server, poll_s=0.005).run(should_stop=training)
    server.join()
    assert outcome.stopped and outcome.trials == 0  # the abandoned trial is not counted
    assert server.launched and store.get(server.launched[0]).status == "stopped"  # with its checkpoint
    report = study_report(studio_home, "s")
    assert report["trials"] == [] and report["counts"]["complete"] == 0


def test_the_best_settings_are_repeated_over_seeds_as_one_group(studio_home) -> None:
    store = RunStore(studio_home)
    server = FakeQueueServer()
    outcome = SearchDriver(store, spec(trials=3, pruner="none", repeat_seeds=[0, 1, 2]), server,
                           poll_s=0.005).run()
    assert len(outcome.repeat_run_ids) == 3
    params = {r: store.params(r) for r in outcome.repeat_run_ids}
    groups = seed_groups(params)
    assert len(groups) == 1 and groups[0].seeds == (0, 1, 2)
    assert params[outcome.repeat_run_ids[0]]["optimizer.lr"] == pytest.approx(outcome.best_params["optimizer.lr"])
    server.join()


def test_a_second_driver_on_the_same_study_is_refused_and_so_is_another_space(studio_home) -> None:
    store = RunStore(studio_home)
    from studio.core.runs.run_lock import RunLock

    lock = RunLock(studio_home / "searches" / "s")
    assert lock.acquire()
    with pytest.raises(ConfigError, match="is being searched by another process"):
        SearchDriver(store, spec(), FakeQueueServer()).run()
    lock.release()
    SearchDriver(store, spec(trials=1, pruner="none"), FakeQueueServer(), poll_s=0.005).run()
    other = SearchSpec("s", parse_space(["optimizer.lr=1e-3..1e-1"], BASE), BASE, trials=2)
    with pytest.raises(ConfigError, match="to continue it give the same space and metric"):
        SearchDriver(store, other, FakeQueueServer()).run()
