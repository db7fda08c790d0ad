"""Drives the live playground in Studio's real main window (xcb, real input from xdotool through the X server)
and prints what it saw as one JSON line; run by tests/gui/test_real_window_playground.py in a child process:

    python -m tests.gui.playground_window_driver WIDTHxHEIGHT [SCREENSHOT_DIR]

A real click on Train; once it learns, a real click into the learning-rate field, ctrl+a, "0.001" typed and
Return; then a real click on Pause. It reports the job before and after, the frames' steps and the notes the
running child sent back (what the change did), and whether the steps stood still once paused."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from PySide6.QtTest import QTest

from studio.engine.jobs import backend
from tests.gui.real_window_driver import centre, open_window, point_at, settle, shoot, xdotool


def wait_for(condition: Any, timeout_ms: int = 60_000) -> bool:
    waited = 0
    while not condition() and waited < timeout_ms:
        QTest.qWait(100)
        waited += 100
    return bool(condition())


def click(widget: Any) -> None:
    point_at(centre(widget))
    xdotool("click", 1)
    settle(200)


def drive(window: Any, shots: Path | None) -> dict[str, Any]:
    lab = window.pages.tab("teaching_lab")
    window.tabs.setCurrentWidget(lab)
    settle(300)
    view = lab.open("playground")
    settle(300)
    click(view.compute_button)  # Train
    learning = wait_for(lambda: view.recording is None and view.frame_count() >= 5)  # live frames, not the recording
    job = view.task.job.id if view.task is not None else None
    shoot(window, shots, "playground-learning")
    notes: list[dict[str, Any]] = []
    view.panel.frame.connect(lambda f: notes.append({"step": f["step"], "notes": f["notes"],
                                                       "at": f.get("changed_at")}) if f.get("notes") else None)
    field = view.param_widgets["lr"]
    click(field)
    xdotool("key", "ctrl+a")
    xdotool("type", "--delay", 40, "0.001")
    xdotool("key", "Return")
    reached = wait_for(lambda: any("lr 0.001" in n for f in notes for n in f["notes"]), 30_000)
    settle(1000)
    shoot(window, shots, "playground-after-lr-change")
    out: dict[str, Any] = {
        "learning": learning, "job_before": job, "job_after": view.task.job.id, "busy": view.busy,
        "lr_param": view.params["lr"], "field_focused": field.hasFocus(), "notes": notes, "reached": reached,
        "steps": [f["step"] for f in view.frames], "status": view.status.text(), "marks": len(view.marks)}
    click(view.player.play_button)  # Pause
    wait_for(lambda: not view.player.playing and view.status.text().startswith("Paused"), 30_000)
    settle(300)
    paused_at = view.frames[-1]["step"]
    settle(1500)
    out.update(pause_text=view.player.play_button.text(), paused_at=paused_at, after_pause=view.frames[-1]["step"])
    view.stop()
    wait_for(lambda: not view.busy, 30_000)
    out["state"] = view.task.state
    return out


def main(argv: list[str]) -> int:
    size = argv[0]
    shots = Path(argv[1]) if len(argv) > 1 else None
    backend.start_warm()
    app, window = open_window(size)
    try:
        result = drive(window, shots)
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
        backend.stop_warm()
    print(json.dumps(result), flush=True)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
