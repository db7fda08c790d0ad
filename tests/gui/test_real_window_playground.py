"""Issue 21: the live playground in a real window (Xvfb, Qt's xcb platform, real clicks and typing from xdotool):
a learning rate typed into the form while it trains reaches the running training (the same job, the child's note
of what it did comes back), and Pause stops the steps. The driver is tests/gui/playground_window_driver.py; set
STUDIO_SHOTS=DIR to keep its screenshots."""

from __future__ import annotations

import os

from tests.gui.xvfb_support import run_driver, xvfb


def test_a_learning_rate_typed_while_it_trains_changes_the_running_training(tmp_path):
    shots = os.environ.get("STUDIO_SHOTS")
    with xvfb("1280x800") as display:
        result = run_driver("tests.gui.playground_window_driver", ["1280x800", *([shots] if shots else [])],
                            display, tmp_path / "home", timeout=180)
    assert result["learning"], result
    assert result["field_focused"] and result["lr_param"] == 0.001, result  # the typing reached the form
    assert result["reached"] and result["job_after"] == result["job_before"] and result["busy"], result
    note = next(f for f in result["notes"] if any("lr 0.001" in n for n in f["notes"]))
    steps = result["steps"]
    assert steps == sorted(steps) and steps[0] == 0 and steps[-1] > note["at"] > 0  # one training, on from there
    assert result["marks"] >= 1 and "lr 0.001" in result["status"]
    assert result["pause_text"] == "Play" and result["after_pause"] == result["paused_at"], result
    assert result["state"] == "stopped"
