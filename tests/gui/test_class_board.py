"""The class board window over a shared run store that students' processes write to while it is open: it follows
them (ranked by the best val/acc), hides names on request, and says so when no run was trained for a lesson."""

from __future__ import annotations

from studio.core.runs.store import RunStore
from studio.gui.app import class_board as board_window
from studio.gui.app.class_board import ClassBoard
from tests.unit.test_class_board import CLASS, writers


def test_the_board_follows_students_writing_at_once(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(board_window, "REFRESH_MS", 100)
    home = tmp_path / "shared"
    RunStore(home).close()
    board = ClassBoard(RunStore(home, read_only=True))
    qtbot.addWidget(board)
    board.resize(1280, 800)
    board.show()
    assert board.table.rowCount() == 0 and "No run" in board.status.text()
    procs = writers(home, "Week 3", CLASS, steps=200)
    try:
        qtbot.waitUntil(lambda: board.lesson_box.currentData() == "week-3", timeout=30_000)
        qtbot.waitUntil(lambda: [board.table.item(r, 1).text() for r in range(board.table.rowCount())]
                        == ["alan", "ada", "grace", "edsger"] and all(row.status == "finished" for row in board.rows),
                        timeout=60_000)
    finally:
        for p in procs:
            p.wait(timeout=60)
    assert [board.table.item(r, 0).text() for r in range(4)] == ["1", "2", "3", "4"]
    assert board.table.item(0, 3).text() == "0.9500" and board.table.item(0, 6).text() == "optimizer.lr = 0.01"
    assert board.heading.text() == "week-3 — ranked by val/acc"
    board.hide_names.setChecked(True)
    assert {board.table.item(r, 1).text() for r in range(4)} == {"student 1", "student 2", "student 3", "student 4"}
