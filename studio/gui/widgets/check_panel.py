"""A demo's paper check in its panel: the "Paper check" button (beside Compute/Stop) runs the demo's checks
(``core/checks.checks_for_demo``) as a background job through the Session, as the demo itself runs; the result
appears below the demo's parameters: the paper's set-up and number, ours and what was scaled down, each measure
"ours vs paper [band]" and a coloured PASS/FAIL. "Show this set-up" puts the check's preset in the demo's form."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.core.checks import results
from studio.core.checks.base import PaperCheck
from studio.core.contracts.checks import CheckRequest
from studio.gui.widgets.job_panel import FAILURE_LINES, JobPanel, Words
from studio.gui.widgets.paper_check import outcome_html

IDLE_TEXT, RUNNING_TEXT = "Paper check", "Stop check"
WORDS = Words(idle="Press Paper check to reproduce the paper's claim here.", starting="Checking against the paper…",
              progress="Checking… {percent} % {text}", cancelling="Stopping the paper check…",
              cancelled="Paper check stopped.", failed="{first_line}")


class CheckPanel(QWidget):
    """The check's text (in the explanation column) and its buttons; ``run_button`` (Paper check / Stop check: the
    job panel's toggle) sits beside Compute, the progress and status in this panel."""

    def __init__(self, view: Any, checks: list[PaperCheck], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view  # the DemoView: its session runs the job, its form takes the preset
        self.checks = checks
        self.outcomes: list[dict[str, Any]] = []
        self.job = JobPanel(IDLE_TEXT, cancel_text=RUNNING_TEXT, toggle=True, words=WORDS,
                            status_lines=FAILURE_LINES)  # in the demos' narrow column, as their own panel
        self.job.run_clicked.connect(self.run)
        self.job.done.connect(self._done)
        self.run_button = self.job.run_button  # the view places it beside its own buttons
        self.run_button.setObjectName("paper_check")
        self.run_button.setToolTip("Run this lesson's paper check: a small seeded reproduction compared with the "
                                   "paper's number (in the background)")
        self.heading = QLabel("<b>Paper check</b>")
        self.text = QLabel()
        self.text.setObjectName("paper_check_result")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
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
        layout.addWidget(self.job)
        layout.addWidget(self.text)
        self._render()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.job.cancel)

    @property
    def busy(self) -> bool:
        return self.job.busy

    @property
    def status(self) -> QLabel:
        return self.job.status

    def run(self) -> None:
        self.outcomes = []
        self._render()
        self.job.start(self.view.session.start(CheckRequest(tuple(c.name for c in self.checks))))

    def show_setup(self, check: PaperCheck) -> None:
        self.view.set_params(dict(check.preset))
        self.view.show_status(f"The set-up of the paper check {check.name} is in the form: press Compute.")

    def _done(self, result: list[dict[str, Any]]) -> None:
        self.outcomes = list(result)
        results.keep(self.outcomes)  # where the Paper checks view reads them (core/checks/results.py)
        passed = sum(o["passed"] for o in self.outcomes)
        self.job.show_status(f"{passed} of {len(self.outcomes)} paper checks PASS." if len(self.outcomes) > 1 else "")
        self._render()
        area = self.view.side_scroll  # the result's top at the top of the explanation column
        area.verticalScrollBar().setValue(self.mapTo(area.widget(), QPoint(0, 0)).y())

    def _render(self) -> None:
        by_name = {o["name"]: o for o in self.outcomes}
        self.text.setText("".join(outcome_html(c, by_name.get(c.name), with_claim=len(self.checks) > 1)
                                  for c in self.checks))
