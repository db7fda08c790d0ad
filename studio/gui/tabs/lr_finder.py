"""The learning-rate finder (the Search view's second page): the range test (Smith 2017; ``studio lr-find``) on
the settings in the form — an exponential ramp of the learning rate over a few hundred steps on a copy of the
model (nothing is kept) — drawn as the loss against the rate on a log axis with the suggested rates marked, and a
click that puts one in the form. The job runs in the engine (``engine/tasks/lr_find.py``); this view never
imports torch.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from studio.core.contracts.lr_find import LrFindRequest, LrFindResult, suggestion_line
from studio.gui.plots.lr_find_plot import draw_lr_find, lr_plot
from studio.gui.widgets.forms import SciSpinBox
from studio.gui.widgets.job_panel import JobPanel, Words

WORDS = Words(idle="The loss along a ramp of learning rates, on a copy of the model: nothing is kept.",
              starting="Ramping the learning rate…", done="Done: the suggestion is below the plot.")
BOX_WIDTH = 100  # the ramp's fields: narrow enough for the row to fit beside the settings at 1024 px
SUGGESTIONS = (("steepest", "steepest descent"), ("min_over_10", "minimum ÷ 10"))


class LrFinderPage(QWidget):
    """The Search view's second page; ``config_set`` once a suggested rate is in the session's config."""

    config_set = Signal()

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: LrFindResult | None = None
        self.marks: dict[str, Any] = {}

        self.start_lr = _rate_box("lr_find_start", 1e-7, "The ramp's first learning rate")
        self.end_lr = _rate_box("lr_find_end", 10.0, "Its last (the test stops once the loss blows up)")
        self.steps = QSpinBox()
        self.steps.setObjectName("lr_find_steps")
        self.steps.setRange(10, 5000)
        self.steps.setValue(200)
        self.steps.setToolTip("Optimizer steps of the ramp, one learning rate each")
        for box in (self.start_lr, self.end_lr, self.steps):
            box.setMaximumWidth(BOX_WIDTH)
        self.panel = JobPanel("Find", arrange="compact", words=WORDS)
        self.panel.run_clicked.connect(self.find)
        self.panel.run_button.setToolTip("Ramp the learning rate on a copy of the model in the form (nothing is kept)")
        self.panel.cancel_button.setToolTip("Stop the range test")
        self.panel.done.connect(self._done)
        for at, (label, widget) in enumerate((("from", self.start_lr), ("to", self.end_lr), ("steps", self.steps))):
            self.panel.buttons.insertWidget(2 * at, QLabel(label))
            self.panel.buttons.insertWidget(2 * at + 1, widget)

        self.plot, self.hint = lr_plot()
        self.suggestion = QLabel("")
        self.suggestion.setObjectName("lr_find_suggestion")
        self.suggestion.setWordWrap(True)
        self.use: dict[str, QPushButton] = {}
        row = QHBoxLayout()  # below the sentence: beside it the two buttons pushed the page past 1024 px
        row.addStretch(1)
        for key, words in SUGGESTIONS:
            button = QPushButton()
            button.setObjectName(f"lr_find_use_{key}")
            button.setToolTip(f"Put the {words} rate in the form's learning rate")
            button.setVisible(False)
            button.clicked.connect(lambda _=False, k=key: self.use_suggestion(k))
            row.addWidget(button)
            self.use[key] = button

        layout = QVBoxLayout(self)
        layout.addWidget(self.panel)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.suggestion)
        layout.addLayout(row)

    def request(self) -> LrFindRequest:
        """The range test of the form's settings (ConfigError for a ramp that cannot be run)."""
        req = LrFindRequest(self.session.config.to_toml(), self.start_lr.value(), self.end_lr.value(),
                            self.steps.value())
        req.validate()
        return req

    def find(self) -> Any:  # type: ignore[override]  # not QWidget.find (a window id): the view's action
        """Start the range test; its handle (None when refused: the status line says why)."""
        return self.panel.submit(self.session, self.request)

    def _done(self, result: LrFindResult) -> None:
        self.show_result(result)

    def show_result(self, result: LrFindResult) -> None:
        """Draw a finished test and offer its suggested rates."""
        self.result = result
        self.marks = draw_lr_find(self.plot, self.hint, result)
        self.suggestion.setText(suggestion_line(result) + f" · {result['steps']} steps of batch "
                                f"{result['batch_size']} on {result['device']}"
                                + (" (stopped: the loss blew up)" if result["stopped_early"] else ""))
        for key, words in SUGGESTIONS:
            value = suggested(result, key)
            button = self.use[key]
            button.setVisible(value is not None)
            if value is not None:
                button.setText(f"Use {value:.2g} ({words})")

    def use_suggestion(self, key: str) -> float | None:
        """Put a suggested rate (``steepest`` or ``min_over_10``) in the form's learning rate; the rate put."""
        value = suggested(self.result, key) if self.result is not None else None
        if value is None:
            return None
        rate = float(f"{value:.2g}")
        self.session.set_param("optimizer", "lr", rate)
        self.config_set.emit()
        self.session.status_text.emit(f"Learning rate set to {rate:g} (the range test's {dict(SUGGESTIONS)[key]})")
        return rate


def suggested(result: LrFindResult, key: str) -> float | None:
    """A suggested rate of a result by name: ``steepest`` or ``min_over_10``."""
    s = result["suggestion"]
    return s["steepest"] if key == "steepest" else s["min_over_10"]


def _rate_box(name: str, value: float, tip: str) -> SciSpinBox:
    box = SciSpinBox()
    box.setObjectName(name)
    box.setRange(1e-10, 1e3)
    box.setValue(value)
    box.setToolTip(tip)
    return box
