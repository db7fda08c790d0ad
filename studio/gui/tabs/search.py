"""The Search view: a hyperparameter search's study (``studio search``, Optuna's storage ``search.db`` beside
runs.db) as plots — the optimisation history, each setting's importance (fANOVA), a slice of the objective
against one setting, and parallel coordinates of the complete trials — and a button that queues the best
settings once per seed (a seed group, drawn as a band in the curves). The search itself runs from the command
line (it drives the queue); this view reads the study whenever it is shown or refreshed. Optuna is imported on
the first read, never at start-up. Its second page is the learning-rate finder (``lr_finder.py``).
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.errors import StudioError
from studio.core.runs.compare import format_metric, format_value, make_axis
from studio.gui.plots.parallel import ParallelCoordinates
from studio.gui.plots.search_plots import NO_STUDY, draw_history, draw_importances, draw_slice, plot_widget
from studio.gui.tabs.lr_finder import LrFinderPage

REPEATS = 5  # the seeds the best settings are queued with, by default


def summary_text(report: dict[str, Any]) -> str:
    """``tpe · asha · max val/acc · 12 complete, 5 pruned · best 0.9120 (trial 7: optimizer.lr=0.01)``."""
    c = report["counts"]
    counts = ", ".join(f"{n} {state}" for state, n in c.items() if n)
    best = report.get("best")
    found = (f" · best {format_metric(best['value'])} (trial {best['number']}: "
             + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in best["params"].items())
             + ")") if best else " · no complete trial yet"
    return (f"{report['sampler']} sampler · {report['pruner']} pruner · {report['direction'][:3]} {report['metric']}"
            f" · {counts or 'no trial yet'}{found}")


def short(value: Any) -> str:
    """A sampled setting in 3 significant digits (0.00837, not 0.008371946); anything else as the table shows it."""
    if isinstance(value, float):
        return f"{value:.3g}"
    return format_value(value)


class SearchTab(QWidget):
    """Two pages: the study (it reads studies: the window gives it the settings panel's width) and the
    learning-rate finder (it tests the form's settings: the settings panel shows beside it)."""

    settings_use_changed = Signal()  # the page shown changed: whether the settings panel shows with it
    study_shown = Signal()  # a study (or why there is none) is drawn
    _read = Signal(int, object)  # the reading thread's (generation, (names, report, error))
    config_set = Signal()  # the finder put a rate in the session's config: the form shows it again

    @property
    def uses_settings_panel(self) -> bool:
        return self.pages.currentWidget() is self.lr_finder

    def page(self, page_id: str) -> QWidget:
        """``"study"`` (this view) or ``"lr_finder"``, shown."""
        if page_id == "lr_finder":
            self.pages.setCurrentWidget(self.lr_finder)
            return self.lr_finder
        self.pages.setCurrentIndex(0)
        return self

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.report: dict[str, Any] | None = None
        self._dirty = True
        self._reading = self._again = False  # a read under way; another asked meanwhile
        self._wanted = ""
        self._generation = 0
        self._importances: dict[tuple[str, int], tuple[dict[str, float], str]] = {}  # (study, complete) → fANOVA
        self._read.connect(self._on_read)

        self.study_box = QComboBox()
        self.study_box.setObjectName("search_study")
        self.study_box.setToolTip("The studies in search.db beside runs.db (optuna-dashboard opens it too)")
        self.study_box.setMinimumContentsLength(16)
        self.study_box.currentIndexChanged.connect(lambda _i: self.show_study(self.study_box.currentText()))
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Read the studies again (a search running elsewhere adds trials)")
        refresh.clicked.connect(self.refresh)
        self.summary = QLabel(NO_STUDY)
        self.summary.setObjectName("search_summary")
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Study"))
        top.addWidget(self.study_box)
        top.addWidget(refresh)
        top.addWidget(self.summary, 1)

        self.history, self.history_hint = plot_widget("Optimisation history", "trial", "objective")
        self.importance, self.importance_hint = plot_widget("Importance (fANOVA)", "share of the variance", "")
        self.slice, self.slice_hint = plot_widget("Slice", "setting", "objective")
        self.slice_key = QComboBox()
        self.slice_key.setObjectName("search_slice_key")
        self.slice_key.setToolTip("The setting the slice plots the objective against")
        self.slice_key.currentTextChanged.connect(self._draw_slice)
        self.parallel = ParallelCoordinates()
        slice_box = QWidget()
        sl = QVBoxLayout(slice_box)
        sl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Slice of"))
        row.addWidget(self.slice_key, 1)
        sl.addLayout(row)
        sl.addWidget(self.slice, 1)
        grid = QGridLayout()
        grid.addWidget(self.history, 0, 0)
        grid.addWidget(self.importance, 0, 1)
        grid.addWidget(slice_box, 1, 0)
        grid.addWidget(self.parallel, 1, 1)

        self.seeds = QSpinBox()
        self.seeds.setObjectName("search_repeat_seeds")
        self.seeds.setRange(1, 50)
        self.seeds.setValue(REPEATS)
        self.seeds.setSuffix(" seeds")
        self.seeds.setToolTip("Seeds 0, 1, … the best settings are queued with")
        self.seeds.valueChanged.connect(self._update_button)
        self.repeat_button = QPushButton()
        self.repeat_button.setObjectName("search_repeat_best")
        self.repeat_button.setToolTip("Queue the best trial's settings once per seed: a seed group, drawn in the "
                                      "curves as its mean with a band")
        self.repeat_button.clicked.connect(self.queue_best)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.seeds)
        bottom.addWidget(self.repeat_button)

        study_page = QWidget()
        layout = QVBoxLayout(study_page)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addLayout(bottom)
        self.lr_finder = LrFinderPage(session, self)
        self.lr_finder.config_set.connect(self.config_set)
        self.pages = QTabWidget()
        self.pages.setObjectName("search_pages")
        self.pages.setDocumentMode(True)
        self.pages.addTab(study_page, "Study")
        self.pages.addTab(self.lr_finder, "Learning-rate finder")
        self.pages.currentChanged.connect(lambda _index: self.settings_use_changed.emit())
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)
        self._update_button()
        session.runs_changed.connect(self._changed)

    # --- reading: only while shown -----------------------------------------------------------
    def _changed(self, *_args: Any) -> None:
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """List the studies again and redraw the one shown (the newest at first). Optuna reads the storage on a
        thread of its own (a study of 60 trials takes ~0.5 s, its fANOVA seconds): ``study_shown`` once drawn."""
        self._dirty = False
        self.show_study(self.study_box.currentText())

    def show_study(self, name: str) -> None:
        """Read study ``name`` (the newest if there is none of that name) off the GUI thread, then draw it; while a
        read is under way a new one waits for it (the last asked wins)."""
        self._wanted = name
        if self._reading:
            self._again = True
            return
        self._reading, self._again = True, False
        self._generation += 1
        generation, home, cache = self._generation, self.session.store.home, self._importances

        def read() -> None:
            from studio.core.search.report import read_studies

            try:
                names, report = read_studies(home, name, cache)
                out: tuple[list[str], dict[str, Any] | None, str] = (names, report, "")
            except StudioError as err:
                out = ([], None, str(err))
            except Exception as err:  # noqa: BLE001 - a storage Optuna cannot read: said in the view
                out = ([], None, f"cannot read the studies: {type(err).__name__}: {err}")
            try:
                self._read.emit(generation, out)
            except RuntimeError:  # the view was closed meanwhile
                pass

        threading.Thread(target=read, name="search-study-read", daemon=True).start()

    def _on_read(self, generation: int, out: tuple[list[str], dict[str, Any] | None, str]) -> None:
        self._reading = False
        if self._again:
            self.show_study(self._wanted)
            return
        if generation != self._generation:
            return
        names, report, error = out
        blocked = self.study_box.blockSignals(True)
        self.study_box.clear()
        self.study_box.addItems(names)
        if report is not None:
            self.study_box.setCurrentText(report["study"])
        self.study_box.blockSignals(blocked)
        if report is None:
            self._show_nothing(error or NO_STUDY)
        else:
            self._draw(report)
        self.study_shown.emit()

    def _draw(self, report: dict[str, Any]) -> None:
        self.report = report
        self.summary.setText(summary_text(report))
        draw_history(self.history, self.history_hint, report)
        draw_importances(self.importance, self.importance_hint, report)
        keys = list(report["keys"])
        ranked = sorted(keys, key=lambda k: -report["importances"].get(k, 0.0))  # the most important first
        current = self.slice_key.currentText()
        blocked = self.slice_key.blockSignals(True)
        self.slice_key.clear()
        self.slice_key.addItems(ranked)
        self.slice_key.setCurrentText(current if current in keys else (ranked[0] if ranked else ""))
        self.slice_key.blockSignals(blocked)
        self._draw_slice()
        self._draw_parallel()
        self._update_button()

    def _show_nothing(self, text: str) -> None:
        self.report = None
        self.summary.setText(text)
        for widget, hint in ((self.history, self.history_hint), (self.importance, self.importance_hint),
                             (self.slice, self.slice_hint)):
            widget.clear()
            hint.show_hint(text)
        self.parallel.show_empty(text)
        self._update_button()

    def _draw_slice(self, *_args: Any) -> None:
        if self.report is not None:
            draw_slice(self.slice, self.slice_hint, self.report, self.slice_key.currentText())

    def _draw_parallel(self) -> None:
        report = self.report
        rows = [r for r in (report or {}).get("trials", []) if r["state"] == "complete" and r["value"] is not None]
        if report is None or not rows:
            self.parallel.show_empty("The complete trials are drawn here, one line each")
            return
        values: list[float | None] = [float(r["value"]) for r in rows]
        axes = [make_axis(k, [r["params"].get(k) for r in rows], short) for k in report["keys"]]
        axes.append(make_axis(report["metric"], values, format_metric))
        self.parallel.show_axes(axes, [f"trial {r['number']}" for r in rows], values)

    # --- the best settings over seeds --------------------------------------------------------
    def _update_button(self) -> None:
        n = self.seeds.value()
        self.repeat_button.setText(f"Queue the best settings with {n} seed{'s' if n != 1 else ''}")
        self.repeat_button.setEnabled(bool(self.report and self.report.get("best")))

    def queue_best(self) -> list[str]:
        """Queue the best trial's settings once per seed 0 … n−1 (tagged with the study); their run ids."""
        from studio.core.search.driver import search_tag
        from studio.core.search.study import load_spec

        report = self.report
        if not report or not report.get("best"):
            return []
        try:
            _study, spec = load_spec(self.session.store.home, report["study"])
            config = spec.space.apply(spec.base, report["best"]["params"])
        except StudioError as err:
            self.session.error.emit("Cannot queue the best settings", str(err))
            return []
        configs = [(config.with_overrides([f"train.seed={seed}"]), "") for seed in range(self.seeds.value())]
        ids = self.session.enqueue(configs)
        if ids:
            self.session.store.add_tags(ids, [search_tag(spec.name)])
        return ids
