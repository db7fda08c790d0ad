"""The headless commands' one progress printer (cli/_shared.StderrProgress): a live bar on a terminal, a line
per tenth / stage / epoch otherwise, the job's own ETA, and nothing with --quiet."""

from __future__ import annotations

import io

from studio.cli._shared import StderrProgress
from studio.core.contracts.progress import Report


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _train(bar: StderrProgress) -> None:
    for epoch, step, eta in ((1, 10, None), (1, 20, 300.0), (2, 30, 80.0), (2, 40, 40.0)):
        bar.training({"step": step, "total_steps": 40, "epoch": epoch, "epochs": 2, "eta_s": eta}, loss=0.5)
    bar.close()


def test_off_a_terminal_a_line_per_epoch_with_the_jobs_eta():
    log = io.StringIO()
    _train(StderrProgress(stream=log))
    assert log.getvalue().splitlines() == [" 25% epoch 1/2 step 10/40 loss 0.5000",
                                           " 75% epoch 2/2 step 30/40 loss 0.5000 · about 80 s left"]


def test_on_a_terminal_one_live_line_with_the_jobs_eta(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    term = Terminal()
    _train(StderrProgress(stream=term))
    out = term.getvalue()
    assert out.startswith("\r[#######") and out.count("\r") == 4 and out.endswith("\n") and out.count("\n") == 1
    last = out.rsplit("\r", 1)[1]
    assert last.startswith(f"[{'#' * 30}] 100% epoch 2/2 step 40/40 loss 0.5000 · about 40 s left")
    assert "about 5 min left" in out  # the job's 300 s, not a rate the printer measured itself
    monkeypatch.setenv("COLUMNS", "60")  # narrower than the line: the text is cut, not the ETA
    term = Terminal()
    StderrProgress(stream=term).training({"step": 1, "total_steps": 2, "epoch": 1, "epochs": 1, "eta_s": 9.0}, 0.5)
    assert len(term.getvalue()) == 60 and term.getvalue().endswith("… · about 9 s left")


def test_fraction_tasks_a_line_per_tenth_and_stages_a_line_each():
    log = io.StringIO()
    bar = StderrProgress(stream=log)
    for i in range(21):
        bar(i / 20, "evaluating the grid")
    assert [line[:4] for line in log.getvalue().splitlines()] == [f"{p:3d}%" for p in range(0, 101, 10)]
    log = io.StringIO()
    bar = StderrProgress(stream=log)
    for text in ("reading", "reading", "decoding"):
        bar(Report(0.5, text, 5, 10, eta_s=7200.0))
    assert log.getvalue().splitlines() == [" 50% reading · about 2.0 h left", " 50% decoding · about 2.0 h left"]


def test_quiet_and_silent_off_a_terminal():
    for bar, stream in ((StderrProgress(quiet=True, stream=(t := Terminal())), t),
                        (StderrProgress(lines=False, stream=(s := io.StringIO())), s)):
        bar(0.5, "x")
        bar.training({"step": 1, "total_steps": 2, "epoch": 1, "epochs": 1, "eta_s": 3.0})
        bar.close()
        assert stream.getvalue() == ""
    term = Terminal()
    bar = StderrProgress(lines=False, stream=term)  # an import still shows its live line on a terminal
    bar(Report(0.25, "decoding images", 1, 4))
    bar.close()
    assert term.getvalue().startswith("\r[#######") and " 25% decoding images" in term.getvalue()
