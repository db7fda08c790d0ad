"""Precision and accumulation in the window: the training panel's global batch (batch × k × ranks = G), the
samples axis counting every micro-batch, and fp16 on the CPU refused with a message before any process starts."""

from studio.gui.app.main_window import MainWindow
from tests.gui.conftest import new_session


def test_the_training_panel_shows_the_global_batch(qtbot):
    session = new_session()
    window = MainWindow(session, probe_backend=False)
    qtbot.addWidget(window)
    label = window.settings.global_batch
    assert "128 × 1 × 1 = 128" in label.text()
    session.set_param("train", "accumulate_steps", 4)
    session.set_param("hardware", "processes", 2)
    assert "64 × 4 × 2 = 512" in label.text()
    session.shutdown(wait_s=1)


def test_the_samples_axis_counts_every_micro_batch_of_a_step(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    from studio.core.config import RunConfig

    session = new_session()
    plain = session.store.create_run(RunConfig().with_overrides(["train.batch_size=32"]))
    accumulated = session.store.create_run(RunConfig().with_overrides(["train.batch_size=32",
                                                                        "train.accumulate_steps=4"]))
    from studio.gui.plots.curve_loader import read_run

    batch = {r: read_run(session.store, r)[1] for r in (plain.id, accumulated.id)}
    assert batch == {plain.id: 32, accumulated.id: 128}
    session.shutdown(wait_s=1)


def test_fp16_on_the_cpu_is_refused_with_a_message_before_any_process_starts(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    session = new_session()
    session.set_param("train", "precision", "fp16")
    with qtbot.waitSignal(session.error, timeout=5000) as got:
        assert session.train() is None
    assert got.args[0] == "Cannot start training" and "fp16 needs a CUDA GPU" in got.args[1]
    assert session.jobs == {} and session.store.list() == []
    session.shutdown(wait_s=1)
