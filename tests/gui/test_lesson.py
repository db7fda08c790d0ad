"""A lesson in the window: saved from what it shows (the demos opened in the Teaching lab with their settings, the
training settings, the selected runs), opened from its file (as `studio lesson.studio-lesson` and a double-click
do) read-only on its first step, Back and Next showing each step in the window; a damaged file is one sentence and
opens nothing."""

from __future__ import annotations

from studio.core.config import RunConfig
from studio.core.lessons import lesson_file
from studio.core.lessons.lesson import Lesson, Step
from studio.gui.app import commands
from studio.gui.app.lesson_dialog import LessonDialog, steps_from_state


def test_a_lesson_saved_from_the_window_opens_on_its_first_step(qtbot, window, tmp_path):
    store = window.session.store
    runs = [store.create_run(RunConfig(), name=n) for n in ("adam-fast", "sgd-slow")]
    window.run_list.refresh()
    lab = window.pages.tab("teaching_lab")
    lab.open("optimizer_race").set_param("steps", 77)
    window.session.set_selection([r.id for r in runs])
    steps = steps_from_state(window.shell)
    kinds = [s.kind for s in steps]
    assert kinds[0] == "note" and "demo" in kinds and "config" in kinds and kinds[-1] == "compare"
    assert steps[-1].runs == ["adam-fast", "sgd-slow"]
    dialog = LessonDialog(steps, window)
    qtbot.addWidget(dialog)
    dialog.title.setText("Week 3")
    dialog.list.setCurrentRow(0)
    dialog.notes.setPlainText("<b>not bold</b> — plain text")
    lesson = dialog.lesson()
    path = lesson_file.save(lesson, tmp_path / "week3")
    before = path.read_bytes()

    window.session.set_selection([])
    window.pages.tabs.setCurrentIndex(0)
    assert commands.open_path(window.shell, str(path)) == "lesson"
    panel = window.shell.lesson_panel
    assert panel is not None and panel.index == 0
    qtbot.waitUntil(panel.isVisible)
    assert panel.windowTitle() == "Lesson: Week 3" and panel.counter.text() == f"Step 1 of {len(lesson.steps)}"
    assert panel.heading.text() == "Welcome" and panel.notes.isReadOnly()
    assert panel.notes.toPlainText() == "<b>not bold</b> — plain text" and not panel.back.isEnabled()
    race = next(i for i, s in enumerate(lesson.steps) if s.kind == "demo" and s.demo == "optimizer_race")
    for _ in range(race):
        panel.next.click()
    assert panel.index == race and window.pages.tabs.currentWidget() is lab
    assert lab.stack.currentWidget() is lab.views["optimizer_race"]
    assert lab.views["optimizer_race"].params["steps"] == 77
    while panel.next.isEnabled():
        panel.next.click()
    assert window.session.selected_runs() == [r.id for r in runs]  # the compare step, by the runs' names
    assert "2 of 2 runs are selected" in panel.what.text()
    panel.back.click()
    assert panel.index == len(lesson.steps) - 2
    panel.student.setText("Ada L.")
    panel.tag_run(runs[0].id)  # what Train does while a lesson is open: the class board finds the run by these
    assert store.tags([runs[0].id])[runs[0].id] == ["lesson:week-3", "student:ada-l"]
    assert path.read_bytes() == before  # read-only: the file is never written


def test_a_damaged_lesson_is_refused_in_one_sentence(qtbot, window, tmp_path):
    path = lesson_file.save(Lesson("x", [Step("note", "Hi")]), tmp_path / "broken")
    path.write_bytes(path.read_bytes()[:40])
    assert commands.open_path(window.shell, str(path)) == "missing"
    title, message = window.status.last_error
    assert title == "Open lesson" and message.startswith("broken.studio-lesson cannot be opened: it is damaged")
    assert "\n" not in message and window.shell.lesson_panel is None
