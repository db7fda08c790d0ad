"""How the window follows the session's runs: Train, Queue, Stop and Pause (and the settings panel) by the run
state and the store (a watched store takes no runs: said on Train itself), the status bar's progress and
``Epoch a/b · step c/d · <ETA>``, the curves' live rows, and the selected runs overlaid."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from studio.core.vocab import JobState
from studio.gui.app.curves_pane import CurvesPane
from studio.gui.app.status_bar import StatusBar
from studio.gui.panels.run_list import RunList
from studio.gui.session.messages import run_progress
from studio.gui.session.session import Session

IDLE = "idle"


class RunState(QObject):
    """Connected to the session's run signals; ``last_progress`` is the run's last report (the ETA while paused)."""

    def __init__(self, session: Session, actions: dict[str, QAction], settings: QWidget, status: StatusBar,
                 curves: CurvesPane, run_list: RunList, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session, self.actions, self.settings, self.status = session, actions, settings, status
        self.curves, self.run_list = curves, run_list
        self.last_progress: dict | None = None
        session.state_changed.connect(self.on_state)
        session.metrics.connect(lambda run_id, rows: self.curves.curves.add_rows(run_id, rows))
        session.progress.connect(self.on_progress)
        session.run_started.connect(lambda _run_id: self.status.set_progress(0))
        session.run_ended.connect(self.on_ended)
        session.selection_changed.connect(self.show_selection)

    def on_state(self, state: str) -> None:
        """Train and Queue while idle and not watching (why not, on their tooltips); Stop and Pause while a run
        goes; the settings only while idle."""
        watching = self.session.why_read_only()
        train, queue = self.actions["train"], self.actions["queue"]
        train.setEnabled(state == IDLE and not watching)
        queue.setEnabled(not watching)
        for action in (train, queue):
            if action.property("usual_tip") is None:
                action.setProperty("usual_tip", action.toolTip())
            action.setToolTip(watching or action.property("usual_tip"))
        self.actions["stop"].setEnabled(state != IDLE)
        pause = self.actions["pause"]
        pause.setEnabled(state != IDLE)
        pause.setText("Resume" if state == JobState.PAUSED else "Pause")
        self.settings.setEnabled(state == IDLE)
        if state == IDLE:
            self.last_progress = None
            self.status.set_progress(None)
            self.status.set_eta("")
        elif state == JobState.PAUSED:  # the job restarts its rate on resume: paused time is not training time
            paused = self.last_progress
            self.status.set_eta(run_progress(paused, paused=True) if paused else "Paused")

    def on_progress(self, run_id: str, p: dict) -> None:
        """Progress bar and ``Epoch a/b · step c/d · <ETA>``, the ETA being the training job's own
        (``engine/training/launcher.Job.eta_s``, in the words every job uses)."""
        if p.get("total_steps"):
            self.status.set_progress(p.get("step", 0), p["total_steps"])
        self.last_progress = p
        self.status.set_eta(run_progress(p, paused=self.session.state == JobState.PAUSED))

    def on_ended(self, run_id: str, status: str, message: str) -> None:
        acc = self.session.run_summary(run_id).get("test_acc")
        acc_txt = f", test accuracy {acc:.4f}" if isinstance(acc, float) and acc == acc else ""
        label = self.session.run_label(run_id)  # its name, as the run list shows it
        if status == JobState.FAILED:  # one line here (never "Starting run…" left behind); why: in its dialog
            self.status.show_message(f"Run {label} failed (the message box says why)")
        else:
            self.status.show_message(f"Run {label} {status}{acc_txt}")
        if status == JobState.FINISHED:
            self.status.clear_errors()

    def show_selection(self, run_ids: list[str]) -> None:
        """Overlay the selected runs' curves (from the run store; live rows keep arriving), named as in the run
        list and coloured as its swatches."""
        names = {r: self.run_list.names.get(r, r) for r in run_ids}
        curves = self.curves.curves
        curves.load_runs(self.session.store, run_ids, names)  # read and drawn off the GUI thread
        self.run_list.set_colours(curves.colours())
