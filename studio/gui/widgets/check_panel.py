"""A demo's paper check in its panel: the "Paper check" button (beside Compute/Stop) runs the demo's checks
(``core/checks.checks_for_demo``) as a background job through the Session, as the demo itself runs; the result
appears below the demo's parameters: the paper's set-up and number, ours and what was scaled down, each measure
"ours vs paper [band]" and a coloured PASS/FAIL. "Show this set-up" puts the check's preset in the demo's form."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.core.checks.base import PaperCheck
from studio.core.contracts.checks import CheckRequest
from studio.gui.session.job_binding import JobBinding
from studio.gui.widgets.paper_check import outcome_html

IDLE_TEXT, RUNNING_TEXT = "Paper check", "Stop check"


class CheckPanel(QWidget):
    """The check's text (in the explanation column) and its buttons; ``run_button`` sits beside Compute."""

    def __init__(self, view: Any, checks: list[PaperCheck], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view  # the DemoView: its session runs the job, its form takes the preset
        self.checks = checks
        self.outcomes: list[dict[str, Any]] = []
        self.binding = JobBinding(self)
        self.binding.progress.connect(self._progress)
        self.binding.done.connect(self._done)
        self.binding.failed.connect(self._failed)
        self.binding.cancelled.connect(lambda: self._show("Paper check stopped."))
        self.run_button = QPushButton(IDLE_TEXT)
        self.binding.ended.connect(lambda _state: self.run_button.setText(IDLE_TEXT))
        self.run_button.setObjectName("paper_check")
        self.run_button.setToolTip("Run this lesson's paper check: a small seeded reproduction compared with the "
                                   "paper's number (in the background)")
        self.run_button.clicked.connect(self.toggle)
        self.heading = QLabel("<b>Paper check</b>")
        self.text = QLabel()
        self.text.setObjectName("paper_check_result")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel("Press Paper check to reproduce the paper's claim here.")
        self.status.setWordWrap(True)
        self.preset_buttons: list[QPushButton] = []
        # one button per check, stacked: side by side, three of them widened the column past its width
        presets = QHBoxLayout() if len(checks) == 1 else QVBoxLayout()
        for check in checks:
            if not check.preset:
                continue
            first_author = check.name.split("_")[0].title()  # checks are named after the paper: keskar_large_batch
            label = "Show this set-up" if len(checks) == 1 else f"Show the set-up of {first_author}"
            button = QPushButton(label)
            button.setObjectName("show_setup")
            button.setToolTip("Put the check's set-up in the demo's parameters (then Compute to see it)")
            button.clicked.connect(lambda _checked=False, c=check: self.show_setup(c))
            presets.addWidget(button)
            self.preset_buttons.append(button)
        if isinstance(presets, QHBoxLayout):
            presets.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addWidget(self.heading)
        layout.addLayout(presets)
        layout.addWidget(self.status)
        layout.addWidget(self.text)
        self._render()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.binding.cancel)

    @property
    def busy(self) -> bool:
        return self.binding.running

    def toggle(self) -> None:
        """Run the checks, or stop them when they run."""
        if self.binding.cancel():
            self._show("Stopping the paper check…")
            return
        self.run()

    def run(self) -> None:
        self.outcomes = []
        self._render()
        request = CheckRequest(tuple(c.name for c in self.checks))
        self.binding.start(self.view.session.start(request))
        self.run_button.setText(RUNNING_TEXT)
        self._show("Checking against the paper…")

    def show_setup(self, check: PaperCheck) -> None:
        self.view.set_params(dict(check.preset))
        self.view.show_status(f"The set-up of the paper check {check.name} is in the form: press Compute.")

    def _progress(self, fraction: float, text: str) -> None:
        self._show(f"Checking… {int(fraction * 100)} % {text}")

    def _done(self, result: list[dict[str, Any]]) -> None:
        self.outcomes = list(result)
        passed = sum(o["passed"] for o in self.outcomes)
        self._show(f"{passed} of {len(self.outcomes)} paper checks PASS." if len(self.outcomes) > 1 else "")
        self._render()
        area = self.view.side_scroll  # the result's top at the top of the explanation column
        area.verticalScrollBar().setValue(self.mapTo(area.widget(), QPoint(0, 0)).y())

    def _failed(self, message: str) -> None:
        self._show(message.split("\n")[0], error=True)

    def _show(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))
        self.status.setStyleSheet("color: #d9413b" if error else "")

    def _render(self) -> None:
        by_name = {o["name"]: o for o in self.outcomes}
        self.text.setText("".join(outcome_html(c, by_name.get(c.name), with_claim=len(self.checks) > 1)
                                  for c in self.checks))
