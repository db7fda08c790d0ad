"""The line over a demo or lab page that says its picture was recorded, not computed here: "Recorded on 2026-11-27
with Studio 0.1.0 (40 s of CPU time); press Compute to run it live here." It says so until a live result
replaces the recording, and says which settings differ when the form no longer matches the recording."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from studio.core.demos import recordings
from studio.core.demos.recording_file import Recording
from studio.core.errors import StudioError


def duration(seconds: float) -> str:
    """``95`` → "1 min 35 s", ``12.3`` → "12 s"."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def recorded_text(recording: Recording, button: str = "Compute", differing: list[str] | None = None,
                  note: str = "") -> str:
    """What the badge says about ``recording`` (``differing``: the settings the form has changed since)."""
    meta = recording.meta
    took = meta.get("cpu_seconds", meta.get("seconds"))
    how = f" ({duration(took)} of CPU time)" if took is not None else ""
    what = f": {note}" if note else ""
    head = f"Recorded on {recording.date or 'an earlier day'} with Studio {meta.get('studio', '?')}{how}{what}"
    if differing:
        names = ", ".join(k.replace("_", " ") for k in differing[:4]) + (", …" if len(differing) > 4 else "")
        return f"{head}, with other settings than yours ({names}); press {button} to run yours live here."
    return f"{head}; press {button} to run it live here."


class RecordedBadge(QLabel):
    """Shown while a recording stands in for a live result; hidden otherwise."""

    def __init__(self, button: str = "Compute", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.button = button
        self.recording: Recording | None = None
        self.note = ""
        self.setObjectName("recorded_badge")
        self.setWordWrap(True)
        self.setToolTip("A result computed earlier by the same code and settings, shipped with Studio so the demo "
                        "shows something at once")
        self.setStyleSheet("QLabel#recorded_badge { border: 1px solid palette(mid); border-radius: 3px; "
                           "padding: 2px 6px; background: palette(alternate-base); }")
        self.setVisible(False)

    def show_recording(self, recording: Recording, differing: list[str] | None = None, note: str = "") -> None:
        self.recording, self.note = recording, note
        self.setText(recorded_text(recording, self.button, differing, note))
        self.setVisible(True)

    def settings_changed(self, differing: list[str]) -> None:
        """The form changed while the recording is shown: say which settings it was not recorded with."""
        if self.recording is not None and not self.isHidden():
            self.setText(recorded_text(self.recording, self.button, differing, self.note))

    def computing(self) -> None:
        """A live computation started: the recording stays on screen until its first picture arrives."""
        if self.recording is not None and not self.isHidden():
            self.setText(f"Computing live on this machine; the recording stays until the first live picture "
                         f"(recorded on {self.recording.date}).")

    def live(self, _value: Any = None) -> None:
        """A live result replaced the recording."""
        self.recording = None
        self.setVisible(False)

    def restore(self) -> None:
        """A computation ended without a result: the recording is still what is shown."""
        if self.recording is not None:
            self.show_recording(self.recording, note=self.note)

    def follow(self, panel: Any) -> None:
        """Say what a lab page's job panel (``widgets/job_panel.JobPanel``) does to the recording: computing while
        it runs, gone when its result arrives, back when it ends without one."""
        panel.done.connect(self.live)
        panel.busy_changed.connect(lambda busy: self.computing() if busy else self.restore())


def show_shipped(badge: RecordedBadge, name: str, request: Callable[[], Any], show: Callable[[Any], None],
                 ignore: tuple[str, ...] = ()) -> bool:
    """Show the recording Studio ships for lab page ``name`` (``show(result)``) with the badge, when the page's
    untouched form (``request()``) asks for what was recorded (``ignore``: fields that are this machine's, such as
    a run store's folder). Whether it was shown."""
    recording = recordings.shipped(name)
    page = recordings.lab_page(name)
    if recording is None or page is None:
        return False
    try:
        now = asdict(request())
    except (StudioError, AttributeError):  # a form that is no request yet (a page built on a partial session)
        return False
    if [k for k in recordings.differing_settings(recording.params, now) if k not in ignore]:
        return False
    try:
        show(recording.result)
    except Exception:  # noqa: BLE001 - a recording this page cannot draw must not keep the page from opening
        return False
    badge.show_recording(recording, note=page.note)
    return True
