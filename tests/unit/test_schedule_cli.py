"""``studio schedule``: finished runs of a real run store replayed on simulated GPUs (jobs from runs, the table,
--json, every flag, bad input as one sentence with exit 2)."""

from __future__ import annotations

import json

import pytest

from studio.cli import main
from studio.core.contracts.schedule import ScheduleRequest
from studio.core.errors import ConfigError
from studio.core.runs.store import RunStore
from studio.core.scheduling.from_runs import jobs_from_runs
from studio.core.scheduling.study import run_study
from tests.unit.schedule_store import finished_store


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    finished_store(tmp_path)
    return tmp_path


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_jobs_are_the_finished_runs_with_their_measured_time_processes_and_queue_time(home):
    store = RunStore(home)
    jobs, skipped = jobs_from_runs(store)
    by_name = {j.name: j for j in jobs}
    assert set(by_name) == {"short-a", "long", "wide", "short-b"}  # the unfinished run is not a job
    assert skipped == 0
    assert [(by_name[n].arrival, by_name[n].duration, by_name[n].gpus) for n in ("short-a", "long", "wide")] == [
        (0.0, 10.0, 1), (pytest.approx(1.0), 100.0, 1), (pytest.approx(2.0), 30.0, 2)]
    together, _ = jobs_from_runs(store, arrivals="together")
    assert {j.arrival for j in together} == {0.0}
    filtered, _ = jobs_from_runs(store, "short")
    assert {j.name for j in filtered} == {"short-a", "short-b"}
    store.close()


def test_the_table_and_json_replay_every_policy(home, capsys):
    assert main(["schedule", "--gpus", "2", "--policies", "fifo,sjf,srtf,las"]) == 0
    table = capsys.readouterr().out
    assert "4 jobs on 2 GPUs" in table and "LAS (Tiresias)" in table and "SRTF" in table
    assert main(["schedule", "--gpus", "2", "--policies", "fifo,las", "--arrivals", "together", "--json"]) == 0
    out = _json(capsys)
    assert out["gpus"] == 2 and out["arrivals"] == "together" and len(out["jobs"]) == 4
    assert [p["policy"] for p in out["policies"]] == ["fifo", "las"]
    fifo, las = out["policies"]
    assert las["mean_jct"] < fifo["mean_jct"]  # the 100 s run no longer holds up the 5 s one behind it
    for policy in out["policies"]:
        for job in policy["jobs"]:
            assert job["jct"] == pytest.approx(job["finish"])  # all arrive at 0
            start, end, gpus = job["intervals"][0]
            assert start == job["start"] and isinstance(gpus, list)


def test_repeat_quantum_thresholds_and_filter_flags(home, capsys):
    assert main(["schedule", "--gpus", "2", "--policies", "las", "--repeat", "3", "--quantum", "2",
                 "--las-thresholds", "20,200", "--filter", "short", "--json"]) == 0
    out = _json(capsys)
    assert len(out["jobs"]) == 6 and out["quantum"] == 2.0 and out["thresholds"] == [20.0, 200.0]
    assert out["repeat"] == 3


@pytest.mark.parametrize(("argv", "sentence"), [
    (["--filter", "nothing-matches-this"], "no finished run matching 'nothing-matches-this'"),
    (["--gpus", "1"], "needs 2 GPUs but the cluster has only 1"),
    (["--gpus", "0"], "at least 1 GPU"),
    (["--policies", "fifo,random"], "no scheduling policy named 'random'"),
    (["--repeat", "0"], "--repeat takes 1 or more"),
    (["--quantum", "0"], "quantum is a time > 0"),
    (["--las-thresholds", "10,x"], "numbers separated by commas"),
    # absurd sizes (issue 39.4): refused before anything is allocated (was: a MemoryError traceback; unbounded growth)
    (["--gpus", str(10**18)], "a simulated cluster has at most 100,000 GPUs, not 1,000,000,000,000,000,000"),
    (["--repeat", str(10**9)], "repeated at most 10,000 times, not 1,000,000,000"),
    (["--repeat", "9000"], "jobs; a replay takes at most 10,000 (repeat at most"),
])
def test_bad_input_is_one_sentence_and_exit_2(home, capsys, argv, sentence):
    assert main(["schedule", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert sentence in err and len(err.splitlines()) == 1


def test_queued_only_keeps_the_runs_that_went_through_the_queue(home, capsys):
    from studio.core.config import RunConfig

    store = RunStore(home)
    outside = store.create_run(RunConfig(), "trained-with-train")  # the GUI's Train: never queued
    store.set_status(outside.id, "finished", summary={"seconds": 7.0, "world_size": 1})
    store.close()
    assert main(["schedule", "--json"]) == 0
    assert "trained-with-train" in {j["name"] for j in _json(capsys)["jobs"]}
    assert main(["schedule", "--queued-only", "--json"]) == 0
    assert {j["name"] for j in _json(capsys)["jobs"]} == {"short-a", "long", "wide", "short-b"}
    assert main(["schedule", "--queued-only", "--filter", "trained"]) == 2
    assert "no finished run that went through the queue matching 'trained'" in capsys.readouterr().err


def test_an_empty_store_says_so(tmp_path):
    with pytest.raises(ConfigError, match="no finished run in"):
        run_study(ScheduleRequest(home=str(tmp_path)))


def test_json_keys_are_the_contracts_in_order(home, capsys):
    from studio.core.contracts import schedule as contract

    assert main(["schedule", "--gpus", "2", "--json"]) == 0
    out = _json(capsys)
    assert list(out) == list(contract.ScheduleResult.__annotations__)
    assert list(out["jobs"][0]) == list(contract.JobJSON.__annotations__)
    assert list(out["policies"][0]) == list(contract.PolicyResult.__annotations__)
    assert list(out["policies"][0]["jobs"][0]) == list(contract.PlacedJSON.__annotations__)
