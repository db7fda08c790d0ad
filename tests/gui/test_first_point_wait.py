"""Between Train and the first curve point the status bar says what the run waits for (issue 33), from the messages
the run itself sends: its process importing PyTorch (no warm back end), loading the data, building the model and the
optimizer, its first steps; then "Training on …" once the first point is drawn."""

from __future__ import annotations

from studio.core.config import RunConfig


def test_the_status_bar_says_what_the_first_train_waits_for(qtbot, window):
    said: list[str] = []
    window.session.status_text.connect(said.append)
    points: list[str] = []
    window.session.metrics.connect(lambda run_id, _rows: points.append(run_id))
    window.session.set_config(RunConfig.from_dict({"data": {"name": "moons"}, "model": {"name": "mlp",
                                                   "widths": [8]}, "train": {"epochs": 1}}))
    run_id = window.session.train()
    qtbot.waitUntil(lambda: bool(points), timeout=120_000)
    qtbot.waitUntil(lambda: said[-1] == "Training on 1× cpu", timeout=10_000)
    run = window.session.run_label(run_id)  # its name, as the run list shows it
    assert run == "“mlp widths=[8] · moons · 1 epoch”"
    expected = [f"Starting run {run} (1× cpu)…", f"Run {run}: importing PyTorch…",
                f"Run {run}: loading the data…", f"Run {run}: building the model…",
                f"Run {run}: building the optimizer…",
                "Training on 1× cpu: first steps…", "Training on 1× cpu"]
    assert [text for text in said if text in expected] == expected, said
    window.session.stop()
    qtbot.waitUntil(lambda: not window.session.jobs, timeout=60_000)
