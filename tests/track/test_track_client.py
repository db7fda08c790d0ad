"""studio.track: a script's run is an ordinary run of the store (status, params, tags, curves, summary, filter)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import studio.track
from studio.core.contracts import layout
from studio.core.runs import metric_log
from studio.core.runs.run_filter import facts_of, parse
from studio.core.runs.store import RunStore
from studio.track import StudioTrackWarning
from studio.track.warn import forget


@pytest.fixture(autouse=True)
def _fresh_warnings():
    forget()
    yield
    forget()


def test_a_tracked_run_is_a_run_of_the_store(studio_home: Path) -> None:
    with studio.track.init("sweep-a", config={"lr": 1e-3, "model": {"depth": 4}}, tags=["baseline"]) as run:
        for step in range(5):
            run.log({"train/loss": 1.0 / (step + 1), "lr": 1e-3}, step=step)
    store = RunStore()
    info = store.get(run.id)
    assert info.status == "finished"
    assert info.name == "sweep-a" and info.tags == ["baseline"]
    assert info.run_config.model.name == "external"
    params = store.params(run.id)
    assert params["lr"] == 1e-3 and params["model.depth"] == 4
    curves = store.curves([run.id])[run.id]
    assert list(curves["train/loss"].steps) == [0, 1, 2, 3, 4]
    assert curves["train/loss"].values[-1] == pytest.approx(0.2)
    assert info.summary["train_loss"] == pytest.approx(0.2) and info.summary["steps"] == 4
    # the same metrics.csv a native run's rank 0 keeps
    assert len(metric_log.read(info.dir)) == 10
    facts = facts_of(info, params)
    assert parse("lr>0.0001").matches(facts) and not parse("lr>0.01").matches(facts)
    assert parse("model.depth=4 tag:baseline train_loss<0.3").matches(facts)


def test_steps_count_on_when_not_given(studio_home: Path) -> None:
    with studio.track.init("auto") as run:
        run.log({"a": 1.0})
        run.log({"a": 2.0})
        run.log({"a": 3.0}, step=10)
        run.log({"a": 4.0})
    assert list(RunStore().curves([run.id])[run.id]["a"].steps) == [0, 1, 10, 11]


def test_tensors_are_read_off_the_training_thread(studio_home: Path) -> None:
    torch = pytest.importorskip("torch")
    with studio.track.init("tensors") as run:
        run.log({"loss": torch.tensor(0.5, requires_grad=True) * 2, "np": __import__("numpy").float32(0.25)}, step=1)
    curves = RunStore().curves([run.id])[run.id]
    assert curves["loss"].values[0] == pytest.approx(1.0) and curves["np"].values[0] == pytest.approx(0.25)


def test_bad_values_are_said_once_and_skipped_nan_and_inf_are_kept(studio_home: Path) -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with studio.track.init("bad") as run:
            for step in range(3):
                run.log({"text": "high", "none": None, "vector": torch.ones(3), "nan": math.nan,
                         "inf": math.inf, "ok": 1}, step=step)
    said = [str(w.message) for w in caught if issubclass(w.category, StudioTrackWarning)]
    assert len(said) == 3, said  # text, None, the vector: once each, not once per step
    assert any("'text'" in s and "not a number" in s for s in said)
    assert any("shape (3,)" in s for s in said)
    curves = RunStore().curves([run.id])[run.id]
    assert set(curves) == {"nan", "inf", "ok"}
    assert all(math.isnan(v) for v in curves["nan"].values) and all(math.isinf(v) for v in curves["inf"].values)


def test_a_step_going_back_is_kept_and_said_once(studio_home: Path) -> None:
    with pytest.warns(StudioTrackWarning, match="went back from step 10 to step 3"):
        with studio.track.init("back") as run:
            run.log({"x": 1.0}, step=10)
            run.log({"x": 2.0}, step=3)
            run.log({"x": 3.0}, step=2)
    curve = RunStore().curves([run.id])[run.id]["x"]
    assert list(curve.steps) == [2, 3, 10]


def test_odd_metric_names(studio_home: Path) -> None:
    with pytest.warns(StudioTrackWarning) as said:
        with studio.track.init("names") as run:
            run.log({"val/acc, top-1 \"x\"": 0.5, "line\nbreak": 1.0, "  ": 2.0, 7: 3.0}, step=0)
    assert {str(w.message).split(":")[1].strip()[:6] for w in said} >= {"metric", "a metr"}
    curves = RunStore().curves([run.id])[run.id]
    assert set(curves) == {"val/acc, top-1 \"x\"", "line break", "7"}
    assert {r[1] for r in metric_log.read(RunStore().get(run.id).dir)} == set(curves)


def test_an_exception_fails_the_run_and_ctrl_c_interrupts_it(studio_home: Path) -> None:
    with pytest.raises(ValueError):
        with studio.track.init("boom") as run:
            run.log({"x": 1.0})
            raise ValueError("diverged")
    info = RunStore().get(run.id)
    assert info.status == "failed" and "ValueError: diverged" in info.message
    with pytest.raises(KeyboardInterrupt):
        with studio.track.init("stopped") as run2:
            raise KeyboardInterrupt
    assert RunStore().get(run2.id).status == "interrupted"


def test_a_store_that_cannot_be_opened_is_one_warning(tmp_path: Path) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the store should be")  # as a read-only mount does, mkdir fails
    with pytest.warns(StudioTrackWarning, match="cannot start a run in the store .*training goes on"):
        run = studio.track.init("ro", home=home)
    run.log({"x": 1.0})
    run.finish()
    assert not run.enabled


def test_a_full_disk_mid_run_keeps_the_values_until_it_can_write(studio_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from studio.core.errors import StoreError

    run = studio.track.init("full", flush_s=60)
    real = RunStore.log_metrics
    failing = {"on": True}

    def log_metrics(self, run_id, rows):
        if failing["on"]:
            raise StoreError("cannot record metrics: No space left on device (runs.db)")
        return real(self, run_id, rows)

    monkeypatch.setattr(RunStore, "log_metrics", log_metrics)
    run.log({"x": 1.0}, step=0)
    with pytest.warns(StudioTrackWarning, match="No space left"):
        run.flush()
    run.log({"x": 2.0}, step=1)
    run.flush()  # still full: said once only
    failing["on"] = False
    run.finish()
    assert list(RunStore().curves([run.id])[run.id]["x"].values) == [1.0, 2.0]


def test_other_ranks_record_nothing_unless_every_rank_logs(studio_home: Path) -> None:
    quiet = studio.track.init("ddp", rank=1)
    assert not quiet.enabled
    quiet.log({"x": 1.0})
    quiet.finish()
    assert RunStore().list() == []
    a = studio.track.init("ddp", run_id="job-7", all_ranks=True, rank=0)
    b = studio.track.init("ddp", run_id="job-7", all_ranks=True, rank=1)
    a.log({"loss": 1.0}, step=0)
    b.log({"loss": 2.0}, step=0)
    a.finish()
    b.finish()
    (info,) = RunStore().list()
    assert info.id == "job-7"
    assert set(RunStore().curves(["job-7"])["job-7"]) == {"rank0/loss", "rank1/loss"}
    from studio.core.runs.tracked import read_tracked

    assert set(read_tracked(info.dir)["ranks"]) == {"0", "1"}


def test_the_run_folder_says_where_the_run_came_from(studio_home: Path) -> None:
    from studio.core.runs.tracked import read_tracked

    with studio.track.init("src", config={"opt": "adamw", "betas": (0.9, 0.99), "path": Path("/x")}) as run:
        pass
    info = RunStore().get(run.id)
    tracked = read_tracked(info.dir)
    assert tracked["source"] == "track" and tracked["settings"]["betas"] == [0.9, 0.99]
    assert RunStore().params(run.id)["path"] == "/x"
    assert layout.tracked_path(info.dir).is_file()


def test_the_config_text_says_external_as_the_run_list_reads_it(studio_home: Path) -> None:
    from studio.core.config import RunConfig
    from studio.core.config.external import is_external_toml

    with studio.track.init("ext", config={"model": {"name": "resnet"}}) as run:
        pass
    info = RunStore().get(run.id)
    assert is_external_toml(info.config) and not is_external_toml(RunConfig().to_toml())
    assert RunStore().params(run.id)["model.name"] == "resnet"  # the script's word is what the list shows
