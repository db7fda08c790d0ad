"""The frame of every demo view: the explanation panel, the parameters, compute/stop, progress, the
player, and presentation mode. A view subclass draws: ``build_plots``, ``clear_data``, ``on_frame``,
``on_result``, ``frame_count`` and ``show_frame``.

A view opens on the recording Studio ships for its demo (``core/demos/recordings``), drawn as a finished
computation and marked by a badge; Compute runs it live here, the recording staying on screen until the first live
frame replaces it.
"""

from __future__ import annotations

import html
from functools import partial
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.core.checks.catalog import checks_for_demo
from studio.core.contracts.jobs import DemoRequest
from studio.core.demos import recordings
from studio.core.demos.catalog import DEMOS, EXPLANATIONS
from studio.core.demos.recording_file import Recording
from studio.core.errors import StudioError
from studio.gui.demos import style
from studio.gui.demos.player import Player
from studio.gui.plots.empty_hint import EmptyHint
from studio.gui.widgets.check_panel import CheckPanel
from studio.gui.widgets.forms import param_widget
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.recorded_badge import RecordedBadge

RERUN_DELAY_MS = 400


class DemoView(QWidget):
    demo = ""  # the DEMOS entry this view shows
    rate = 20.0  # frames a second at 1× speed
    auto_rerun = False  # recompute (debounced) when a parameter changes: for demos that take a second
    live = False  # run the demo live (a "steerable" demo: frames streamed, paced, changes taken while it runs)
    endless = False  # live and without an end: it runs until stopped (the playground)
    short_title = ""  # the title in presentation mode (the lab sets it from its list)

    def __init__(self, session: Any, parent: QWidget | None = None, recorded: bool = True) -> None:
        """``recorded``: open on the shipped recording (a copy made for a recording of slides does not)."""
        super().__init__(parent)
        self.entry = DEMOS.get(self.demo)
        self.explanation = EXPLANATIONS[self.demo]
        self.params: dict[str, Any] = self.entry.defaults()
        self.session = session  # starts and follows the demo's background job
        # the current computation (a newer one replaces it): Compute, Stop, the progress and the status line
        self.panel = JobPanel("Compute", cancel_text="Stop", replaces=True, words=Words(
            idle="Press Play to compute and animate the demo.", starting="Computing…", cancelling="Stopping…",
            cancelled="Stopped.", failed="{first_line}", done="Done — play, pause, step or drag the slider."),
            status_lines=FAILURE_LINES)
        self.panel.run_clicked.connect(self.compute)
        self.panel.frame.connect(self._frame)
        self.panel.done.connect(self._done)
        self.panel.failed.connect(self._failed)
        self.panel.ended.connect(self._ended)
        self.result: dict[str, Any] | None = None
        self.presentation = False
        self.error_text = ""
        self.recording: Recording | None = None  # the shipped recording on screen (None: a live result, or none)
        self._replace_recording = False  # a live computation started over the recording: clear at its first frame
        self._build()
        self.rerun_timer = QTimer(self)
        self.rerun_timer.setSingleShot(True)
        self.rerun_timer.setInterval(RERUN_DELAY_MS)
        self.rerun_timer.timeout.connect(self.compute)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        if recorded:
            self.show_recorded()

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel(self.entry.description)
        self.title.setObjectName("demo_title")
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.title.setFont(font)

        self.about = QLabel(self._explanation_html())
        self.about.setObjectName("explanation")
        self.about.setWordWrap(True)
        self.about.setTextFormat(Qt.TextFormat.RichText)
        self.about.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.form_widget = QWidget()
        self.form = QFormLayout(self.form_widget)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.param_widgets: dict[str, QWidget] = {}
        for param in self.entry.params:
            w = param_widget(param, self.params[param.name], partial(self.set_param, param.name))
            label = QLabel(param.name.replace("_", " "))
            label.setToolTip(param.help)
            self.form.addRow(label, self.decorate_param(param.name, w))
            self.param_widgets[param.name] = w
        self.compute_button = self.panel.run_button
        self.compute_button.setObjectName("compute")
        self.compute_button.setToolTip("Run the demo's computation with these settings (in the background)")
        self.stop_button = self.panel.cancel_button
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip("Cancel the computation running in the background")
        self.panel.status.setObjectName("status")
        self.record_button = QPushButton("Record…")
        self.record_button.setObjectName("record")
        self.record_button.setToolTip("Save this demo for slides: an MP4 or GIF of its frames, or a PNG or SVG "
                                      "still, at the size you choose")
        self.record_button.clicked.connect(self.record_for_slides)
        self.panel.add_button(self.record_button, while_busy=True)
        checks = checks_for_demo(self.demo)  # the lesson's paper checks: a button beside Compute, text by the claim
        self.check_panel = CheckPanel(self, checks) if checks else None
        if self.check_panel is not None:
            self.panel.add_button(self.check_panel.run_button, while_busy=True)

        # The explanation and the parameters scroll; Compute/Stop, the progress and the status stay in sight
        # below them (at 1280×800 a long form used to push them out of view).
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.about)
        side_layout.addWidget(self.form_widget)
        if self.check_panel is not None:  # below the form: above it, it pushed the playground's lr out of sight
            side_layout.addWidget(self.check_panel)
        side_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        self.side_scroll = scroll  # not ``scroll``: that would hide QWidget.scroll
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(scroll, 1)
        column_layout.addWidget(self.panel)
        column.setMinimumWidth(230)
        self.side = column

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setObjectName("demo_plots")
        self.build_plots()
        # until the first frame the plots have nothing to show: a hint instead of meaningless axes
        self.empty = EmptyHint(self.graphics, "Press Compute or Play: the demo runs and draws here")
        self.player = Player(self.rate)
        self.player.frame.connect(self.show_frame)
        self.player.frame.connect(lambda _index: self.empty.hide_hint())
        self.player.play_requested.connect(self.compute)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        self.build_extra_controls(centre_layout)
        self.caption = QLabel("")
        self.caption.setObjectName("caption")
        self.caption.setWordWrap(True)
        self.badge = RecordedBadge(self.compute_button.text())
        centre_layout.addWidget(self.badge)
        centre_layout.addWidget(self.caption)
        centre_layout.addWidget(self.graphics, 1)
        centre_layout.addWidget(self.player)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.side)
        self.splitter.addWidget(centre)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([300, 900])
        self.splitter.setCollapsible(1, False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.splitter, 1)
        style.style_view(self.graphics, self.presentation)  # the ink of restyle() needs its background
        self.restyle()

    def _explanation_html(self) -> str:
        e = self.explanation
        formula = html.escape(e.formula).replace("\n", "<br>")
        return (f"<p><b>The claim.</b> {html.escape(e.claim)}</p>"
                f"<p style='font-family: monospace'>{formula}</p>"
                f"<p><b>Watch:</b> {html.escape(e.watch)}</p>"
                f"<p><i>{html.escape(e.paper)}</i></p>")

    # --- what subclasses provide -------------------------------------------------------------
    def build_plots(self) -> None:
        raise NotImplementedError

    def decorate_param(self, name: str, widget: QWidget) -> QWidget:
        """What the form shows for parameter ``name``: its widget, or a row around it (e.g. with a menu button)."""
        return widget

    def build_extra_controls(self, layout: QVBoxLayout) -> None:
        """Controls above the plots (e.g. a batch-size slider); none by default."""

    def clear_data(self) -> None:
        """Forget the last computation (a new one starts)."""

    def on_frame(self, frame: dict[str, Any]) -> None:
        """A live frame arrived."""

    def on_result(self, result: dict[str, Any]) -> None:
        """The computation finished."""

    def frame_count(self) -> int:
        return 0

    def show_frame(self, index: int) -> None:
        raise NotImplementedError

    def data_items(self) -> list[Any]:
        """Plot items that hold data once a frame is shown (tests and screenshots check them)."""
        return []

    def restyle(self) -> None:
        """Apply pens and fonts for the current mode to every plot item."""

    # --- parameters --------------------------------------------------------------------------
    def set_param(self, key: str, value: Any) -> None:
        try:
            self.params[key] = self.entry.param(key).coerce(value, key)
        except StudioError as err:
            self.show_status(str(err), error=True)
            return
        self._recording_settings()
        if self.auto_rerun and self.result is not None:
            self.rerun_timer.start()

    def set_params(self, values: dict[str, Any]) -> None:
        """Set several parameters and show them in the form (no recompute)."""
        for key, value in values.items():
            self.params[key] = self.entry.param(key).coerce(value, key)
            w = self.param_widgets[key]
            w.blockSignals(True)  # the widgets param_widget makes:
            if isinstance(w, QCheckBox):
                w.setChecked(bool(self.params[key]))
            elif isinstance(w, QComboBox):
                w.setCurrentText(str(self.params[key]))
            elif isinstance(w, QSpinBox | QDoubleSpinBox):
                w.setValue(self.params[key])
            elif isinstance(w, QLineEdit):
                w.setText(str(self.params[key]))
            w.blockSignals(False)
        self._recording_settings()

    # --- the shipped recording ---------------------------------------------------------------
    def show_recorded(self, recording: Recording | None = None) -> bool:
        """Draw the recording of this demo (default: the one Studio ships) as a finished computation, at its last
        frame, with the badge; only when it was made with the view's settings and nothing is computing."""
        recording = recording or recordings.shipped(self.demo)
        if recording is None or self.busy or recordings.differing_settings(recording.params, self.params):
            return False
        self.recording = recording
        self.badge.button = self.compute_button.text()
        self.player.reset()
        try:
            self._done(recording.result)
        except Exception:  # noqa: BLE001 - a recording this view cannot draw must not keep the demo from opening
            self.recording, self.result = None, None
            self.clear_data()
            self.player.reset()
            return False
        self.badge.show_recording(recording)
        self.player.seek(self.frame_count() - 1)
        return True

    def snapshot(self) -> dict[str, Any] | None:
        """What a recording of this view replays: the finished (or recorded) result; None while computing."""
        return self.result

    def show_result(self, result: dict[str, Any]) -> None:
        """Draw ``result`` as a finished computation (a recording's copy of this view)."""
        self._done(result)

    def record_for_slides(self) -> None:
        """Record…: what is shown, as a video, an animation or a still (``widgets/record_dialog.py``)."""
        from studio.gui.demos.demo_reel import reel_of
        from studio.gui.widgets.record_dialog import ask_and_record

        done = ask_and_record(self.short_title or self.entry.description, lambda style: reel_of(self, style),
                              self.demo, self)
        if done is not None:
            self.show_status(*done)

    def _recording_settings(self) -> None:
        if self.recording is not None:
            self.badge.settings_changed(recordings.differing_settings(self.recording.params, self.params))

    # --- computing ---------------------------------------------------------------------------
    def compute(self) -> None:
        """Start the computation as a background job (replacing one in progress). Over a recording, its picture
        stays until the first live frame arrives."""
        self.result = None
        self.error_text = ""
        self._replace_recording = self.recording is not None
        if self._replace_recording:
            self.badge.computing()
        else:
            self.set_caption("")
            self.clear_data()
        self.player.reset()
        self.panel.start(self.session.start(DemoRequest(self.demo, dict(self.params), live=self.live)))
        self.player.play(request=False)

    def stop(self) -> None:
        self.panel.cancel()

    @property
    def task(self) -> Any:
        """The Session's JobHandle of the current (or last) computation."""
        return self.panel.handle

    @property
    def busy(self) -> bool:
        return self.panel.busy

    def _frame(self, frame: dict) -> None:
        self._leave_recording()
        self.empty.hide_hint()
        self.on_frame(frame)
        self.player.set_count(self.frame_count())

    def _done(self, result: dict[str, Any]) -> None:
        self._leave_recording()
        self.result = result
        self.empty.hide_hint()
        self.on_result(result)
        self.player.set_count(self.frame_count())

    def _leave_recording(self) -> None:
        """The first live frame (or result) of a computation started over the recording: clear it away."""
        if self._replace_recording:
            self._replace_recording = False
            self.recording = None
            self.badge.live()
            self.set_caption("")
            self.clear_data()
            self.player.reset()

    def _ended(self, _state: str) -> None:
        """A computation ended without a frame (stopped, failed): the recording is still on screen; say so again."""
        if self._replace_recording and self.recording is not None and not self.busy:
            self._replace_recording = False
            self.badge.show_recording(self.recording, recordings.differing_settings(self.recording.params, self.params))

    def _failed(self, message: str) -> None:
        self.error_text = message

    def set_caption(self, text: str, short: str | None = None) -> None:
        """The line above the plots that says what the current frame shows (plot titles stay short);
        presentation mode shows ``short`` (one line on a projector) when given."""
        self._captions = (text, short or text)
        self.caption.setText(self._captions[1] if self.presentation else text)
        self.caption.setToolTip(text if self.presentation and short else "")

    @property
    def status(self) -> QLabel:
        """The status line (the job panel's)."""
        return self.panel.status

    def show_status(self, text: str, error: bool = False) -> None:
        self.panel.show_status(text, error)

    def theme_changed(self) -> None:
        """After a theme change (``MainWindow.apply_theme``, once every plot is restyled): this view's own style
        (presentation mode stays black on white; legends get the new background). Called, not an event override:
        a Python ``changeEvent`` on every view ran during the palette change of windows being torn down."""
        style.style_view(self.graphics, self.presentation)
        self.restyle()

    # --- presentation ------------------------------------------------------------------------
    def set_presentation(self, on: bool) -> None:
        """Projector mode: large fonts, thick lines, black on white, only the basic parameters, a short title
        and caption; sizes follow the screen (``style.set_scale``) so 1024×768 fits as well as 1920×1080."""
        self.presentation = bool(on)
        scale = style.scale()
        base = QApplication.font().pointSize()
        font = QFont(self.font())
        font.setPointSize(round(16 * scale) if on else base)
        self.setFont(font)
        title = self.title.font()
        title.setPointSize(round(20 * scale) if on else int(base * 1.3))
        self.title.setFont(title)
        self.title.setText(self.short_title if on and self.short_title else self.entry.description)
        for row, param in enumerate(self.entry.params):
            self.form.setRowVisible(row, not on or param.name in self.explanation.basic)
        self.compute_button.setVisible(True)
        width = max(self.window().width(), 1024)  # a view built hidden has no width of its own yet
        self.splitter.setSizes([max(300, int(width * 0.3)), int(width * 0.7)] if on else [300, 900])
        caption = QFont(self.caption.font())
        caption.setPointSize(round(15 * scale) if on else base + 1)
        caption.setBold(on)
        self.caption.setFont(caption)
        text, short = getattr(self, "_captions", ("", ""))
        self.caption.setText(short if on else text)
        style.style_view(self.graphics, on)
        self.restyle()
        if self.player.position >= 0:
            self.show_frame(self.player.position)
