"""Play / pause / step / speed controls over a growing list of frames (a demo's steps or snapshots)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

SPEEDS = (("¼×", 0.25), ("½×", 0.5), ("1×", 1.0), ("2×", 2.0), ("4×", 4.0), ("8×", 8.0), ("32×", 32.0))
TICK_MS = 33


class Player(QWidget):
    """Advances ``position`` through ``count`` frames at ``rate`` × speed frames a second while playing.

    More frames may arrive while it plays (a live computation): it waits at the newest one. Emits
    ``frame(index)`` whenever the shown frame changes and ``play_requested()`` when Play is pressed with
    nothing to play (the view then starts the computation).
    """

    frame = Signal(int)
    play_requested = Signal()
    # live mode (``set_live``): the buttons steer a computation that runs until stopped instead of replaying it
    run_toggled = Signal(bool)  # Play (True) or Pause (False) pressed
    step_requested = Signal()
    reset_requested = Signal()

    def __init__(self, rate: float = 20.0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rate = rate
        self.count = 0
        self.position = -1
        self.playing = False
        self.live = False
        self.live_text = "–"  # live: what the label says (the view sets it: the step)
        self._carry = 0.0
        self.play_button = QPushButton("Play")
        self.play_button.setObjectName("play")
        self.play_button.setToolTip("Play or pause the animation (computes the demo first if needed)")
        self.play_button.clicked.connect(self.toggle)
        self.step_button = QPushButton("Step")
        self.step_button.setObjectName("step")
        self.step_button.setToolTip("Show the next frame")
        self.step_button.clicked.connect(self.step)
        self.restart_button = QPushButton("Restart")
        self.restart_button.setObjectName("restart")
        self.restart_button.setToolTip("Back to the first frame")
        self.restart_button.clicked.connect(self._restart)
        self.speed = QComboBox()
        self.speed.setObjectName("speed")
        self.speed.setToolTip("Animation speed")
        for text, value in SPEEDS:
            self.speed.addItem(text, value)
        self.speed.setCurrentIndex(2)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("position")
        self.slider.setToolTip("Drag to any frame of the animation")
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slid)
        self.label = QLabel("–")
        self.label.setMinimumWidth(90)
        # the slider has a row of its own: beside the buttons it shrank to a stub at 1280×800
        slider_row = QHBoxLayout()
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(self.label)
        buttons = QHBoxLayout()
        self.speed_label = QLabel("Speed")
        for w in (self.restart_button, self.play_button, self.step_button, self.speed_label, self.speed):
            buttons.addWidget(w)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(slider_row)
        layout.addLayout(buttons)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)

    # --- live mode ---------------------------------------------------------------------------
    def set_live(self, on: bool) -> None:
        """Live: the newest frame is always shown; Play/Pause, Step and Reset ask the view (``run_toggled``,
        ``step_requested``, ``reset_requested``) to steer the computation; no slider, no speed."""
        self.live = on
        self.restart_button.setText("Reset" if on else "Restart")
        self.restart_button.setToolTip("Start again from new random weights (step 0)" if on else
                                       "Back to the first frame")
        self.play_button.setToolTip("Train or pause (changes apply while it trains)" if on else
                                    "Play or pause the animation (computes the demo first if needed)")
        self.step_button.setToolTip("Train one frame's worth of steps, then pause" if on else "Show the next frame")
        for w in (self.slider, self.speed, self.speed_label):
            w.setVisible(not on)
        self._sync()

    def set_running(self, running: bool) -> None:
        """Live: what the computation does now (the button says Pause while it trains)."""
        self.playing = running
        self._sync()

    def _restart(self) -> None:
        self.reset_requested.emit() if self.live else self.seek(0)

    # --- frames ------------------------------------------------------------------------------
    def reset(self) -> None:
        self.count, self.position, self._carry = 0, -1, 0.0
        self._sync()

    def set_count(self, count: int) -> None:
        """Frames available now (grows during a live computation)."""
        self.count = count
        if self.live and count:
            self.seek(count - 1)  # live: always the newest
        elif self.position < 0 and count:
            self.seek(0)
        self._sync()

    def seek(self, index: int) -> None:
        if not self.count:
            return
        index = max(0, min(index, self.count - 1))
        if index != self.position:
            self.position = index
            self._sync()
            self.frame.emit(index)

    def step(self) -> None:
        if self.live:
            self.set_running(False)
            self.step_requested.emit()
            return
        self.pause()
        self.seek(self.position + 1)

    # --- playing -----------------------------------------------------------------------------
    def play(self, request: bool = True) -> None:
        """Start playing; with nothing to play and ``request``, ask the view to compute (``play_requested``)."""
        if self.live:
            self.set_running(True)
            if request:
                self.run_toggled.emit(True)
            return
        if not self.count and request:
            self.play_requested.emit()
        if self.count and self.position >= self.count - 1:
            self.seek(0)
        self.playing = True
        self._carry = 0.0
        self.timer.start()
        self._sync()

    def pause(self) -> None:
        self.playing = False
        self.timer.stop()
        self._sync()
        if self.live:
            self.run_toggled.emit(False)

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def _tick(self) -> None:
        if not self.count:
            return
        self._carry += self.rate * float(self.speed.currentData()) * TICK_MS / 1000
        advance = int(self._carry)
        if advance:
            self._carry -= advance
            self.seek(min(self.position + advance, self.count - 1))

    # --- display -----------------------------------------------------------------------------
    def _slid(self, value: int) -> None:
        if value != self.position:
            self.seek(value)

    def _sync(self) -> None:
        self.play_button.setText("Pause" if self.playing else "Play")
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(self.count - 1, 0))
        self.slider.setValue(max(self.position, 0))
        self.slider.blockSignals(False)
        if self.live:
            self.label.setText(self.live_text)
        else:
            self.label.setText(f"{self.position + 1} / {self.count}" if self.count else "–")
