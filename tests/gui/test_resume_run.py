"""Resume from the run list: a stopped run is one click from continuing, in the same run."""

from __future__ import annotations

from studio.core.config import RunConfig


def test_resume_button_continues_a_stopped_run(qtbot, window):
    session, runs = window.session, window.run_list
    session.config = RunConfig().with_overrides(["data.name=moons", "data.n_samples=400", "train.epochs=60",
                                                 "train.batch_size=32", "model.widths=16"])
    window.settings.reload()
    run_id = session.train()
    qtbot.waitUntil(lambda: window.curves_pane.curves.point_count(run_id, "train/loss") >= 2, timeout=90_000)
    assert not runs.resume_button.isEnabled()  # running: nothing to resume
    session.stop()
    qtbot.waitUntil(lambda: session.state == "idle", timeout=15_000)
    stopped_at = session.store.get(run_id).summary["steps"]
    session.set_selection([run_id])
    assert runs.resume_button.isEnabled()
    runs.resume_button.click()
    assert session.active_job is not None and session.active_job.run_id == run_id
    qtbot.waitUntil(lambda: session.state == "idle", timeout=120_000)
    run = session.store.get(run_id)
    assert run.status == "finished" and run.summary["steps"] > stopped_at
    assert len(session.store.list()) == 1  # the same run, continued
    steps = session.store.metrics(run_id)["train/loss"][0]
    assert steps == sorted(set(steps))  # the curve continues without repeating a step
