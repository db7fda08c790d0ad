"""JobBinding: one place turns a job handle's signals into progress, frame, done / failed / cancelled, ended; a
replaced job's late signals never reach the widget."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from studio.gui.session.job_binding import JobBinding


class FakeJob:
    label = "evaluation"


class FakeHandle(QObject):
    progress = Signal(float, str, object)
    frame = Signal(object)
    ended = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.job, self.done, self.result, self.cancelled = FakeJob(), False, None, False

    def progress_text(self) -> str:
        return "halfway — about 3 s left"

    def cancel(self) -> None:
        self.cancelled = True

    def end(self, state: str, message: str = "", result: Any = None) -> None:
        self.done, self.result = True, result
        self.ended.emit(state, message)


def _record(binding: JobBinding) -> list[tuple]:
    seen: list[tuple] = []
    binding.progress.connect(lambda f, t: seen.append(("progress", f, t)))
    binding.frame.connect(lambda d: seen.append(("frame", d)))
    binding.done.connect(lambda r: seen.append(("done", r)))
    binding.failed.connect(lambda m: seen.append(("failed", m)))
    binding.cancelled.connect(lambda: seen.append(("cancelled",)))
    binding.ended.connect(lambda s: seen.append(("ended", s)))
    return seen


def test_one_job_from_start_to_each_end(qtbot):
    for state, message, last in (("finished", "", ("done", {"x": 1})), ("stopped", "", ("cancelled",)),
                                 ("failed", "no run 'x'", ("failed", "no run 'x'")),
                                 ("failed", "", ("failed", "the evaluation failed"))):
        binding = JobBinding()
        seen = _record(binding)
        handle = binding.start(FakeHandle())
        assert binding.running and binding.current is handle and binding.label == "evaluation"
        handle.progress.emit(0.5, "halfway", 3.0)
        handle.frame.emit({"stage": "preview"})
        assert binding.cancel() and handle.cancelled
        handle.end(state, message, {"x": 1})
        assert seen == [("progress", 0.5, "halfway — about 3 s left"), ("frame", {"stage": "preview"}), last,
                        ("ended", state)]
        assert not binding.running and binding.current is None and binding.handle is handle
        assert not binding.cancel()


def test_a_replaced_job_is_not_heard(qtbot):
    binding = JobBinding()
    seen = _record(binding)
    old = binding.start(FakeHandle())
    new = binding.start(FakeHandle())
    old.progress.emit(0.9, "", None)
    old.frame.emit({})
    old.end("finished", result="stale")
    new.end("finished", result="fresh")
    assert seen == [("done", "fresh"), ("ended", "finished")]
