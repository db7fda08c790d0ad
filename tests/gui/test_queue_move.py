"""Reordering the queue in the Queue tab: Start next / Move up / Move down on the selected waiting run (the runs
here are only queued, no scheduler serves them), and the run list shows the new positions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from studio.core.config import RunConfig


def test_waiting_runs_move_with_the_buttons(qtbot, window):
    session = window.session
    ids = [session.queue.add(RunConfig(), name=f"run {i}").id for i in range(3)]
    session.runs_changed.emit()
    tab = window.pages.tab("Queue")
    window.tabs.setCurrentWidget(tab)
    tree = tab.tree

    def order() -> list[str]:
        return [tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) for i in range(tree.topLevelItemCount())]

    def select(run_id: str) -> None:
        tree.clearSelection()
        next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
             if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == run_id).setSelected(True)

    assert order() == ids
    assert not any(b.isEnabled() for b in tab.move_buttons.values())  # nothing selected
    select(ids[2])
    assert tab.move_buttons["first"].isEnabled() and not tab.move_buttons["down"].isEnabled()
    tab.move_buttons["first"].click()
    assert order() == [ids[2], ids[0], ids[1]] and session.queue_positions()[ids[2]] == 1
    assert tab.selected_waiting() == (ids[2], 1)  # it stays selected where it went
    tab.move_buttons["down"].click()
    assert order() == [ids[0], ids[2], ids[1]]
    select(ids[1])
    tab.move_buttons["up"].click()
    assert order() == [ids[0], ids[1], ids[2]]
    window.run_list.refresh()
    rows = window.run_list.tree
    status = {rows.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole): rows.topLevelItem(i).text(1)
              for i in range(rows.topLevelItemCount())}
    assert [status[r] for r in ids] == ["queued #1", "queued #2", "queued #3"]
    for run_id in ids:
        session.cancel_queued(run_id)
