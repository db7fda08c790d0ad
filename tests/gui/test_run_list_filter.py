"""The run list's filter box, sorting and tags (issue 25, item 5): rows hidden, never rebuilt; the selection
survives a filter and a refresh; a bad filter turns the box red and shows every run."""

from PySide6.QtCore import Qt

from studio.core.config import RunConfig


def _runs(store):
    ids = []
    for i, (lr, acc) in enumerate([(0.1, 0.9), (0.01, None), (0.05, 0.7), (0.2, 0.8)]):
        run = store.create_run(RunConfig().with_overrides([f"optimizer.lr={lr}"]), name=f"run{i}")
        if acc is not None:
            store.set_status(run.id, "finished", summary={"test_acc": acc, "steps": 100 * (i + 1)})
        ids.append(run.id)
    store.add_tags([ids[0], ids[3]], ["baseline"])
    return ids


def test_filter_hides_rows_keeps_the_selection_and_a_bad_filter_turns_red(qtbot, window):
    store, runs = window.session.store, window.run_list
    ids = _runs(store)
    window.session.runs_changed.emit()
    assert runs.shown_ids() == ids[::-1]  # newest first
    tags_col = runs.tree.headerItem().text(7)
    assert tags_col == "Tags" and runs.tree.topLevelItem(0).text(7) == "baseline"
    window.session.set_selection([ids[1], ids[3]])
    item_before = runs._item_of[ids[3]]

    qtbot.keyClicks(runs.filter_box, "tag:baseline")
    assert runs.shown_ids() == [ids[3], ids[0]] and runs.count_label.text() == "2 of 4 runs"
    assert runs._item_of[ids[3]] is item_before  # hidden and shown, not rebuilt
    assert sorted(window.session.selected_runs()) == sorted([ids[1], ids[3]])  # the hidden run stays selected
    assert runs.selected_ids(visible_only=True) == [ids[3]]  # the context menu acts on what is shown

    runs.set_filter("test_acc>0.75 run")
    assert runs.shown_ids() == [ids[3], ids[0]] and not runs.filter_box.error
    runs.set_filter("optim.lr<0.06")
    assert runs.shown_ids() == [ids[2], ids[1]]
    store.set_notes(ids[0], "the one with noisy labels")
    window.session.runs_changed.emit()  # a refresh keeps the filter and the selection
    assert runs.shown_ids() == [ids[2], ids[1]]
    assert sorted(runs.selected_ids()) == sorted([ids[1], ids[3]])
    runs.set_filter("NOISY")
    assert runs.shown_ids() == [ids[0]]

    runs.set_filter("test_acc>high")
    assert runs.filter_box.error.startswith("test_acc>high: 'high' is not a number")
    assert runs.filter_box.property("invalid") and "not a number" in runs.filter_box.toolTip()
    assert runs.count_label.text().startswith("⚠ test_acc>high")
    assert runs.shown_ids() == ids[::-1]  # a bad filter filters nothing
    runs.tree.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)  # Ctrl+F: to the filter box
    assert runs.filter_box.hasFocus()
    qtbot.keyClick(runs.filter_box, Qt.Key.Key_Escape)  # Escape clears it
    assert runs.filter_box.text() == "" and runs.shown_ids() == ids[::-1]
    assert not runs.filter_box.property("invalid") and runs.count_label.text() == "4 runs"


def test_sort_by_a_header_click_numbers_as_numbers_empty_last(qtbot, window):
    store, runs = window.session.store, window.run_list
    ids = _runs(store)
    window.session.runs_changed.emit()
    header = runs.tree.header()

    def column(title):
        index = [runs.tree.headerItem().text(c) for c in range(runs.tree.columnCount())].index(title)
        return [runs.tree.topLevelItem(i).text(index) for i in range(runs.tree.topLevelItemCount())]

    steps = [runs.tree.headerItem().text(c) for c in range(runs.tree.columnCount())].index("Steps")
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=header.viewport().rect().topLeft() + _section_centre(header, steps))
    first = column("Steps")
    header_order = header.sortIndicatorOrder()
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=header.viewport().rect().topLeft() + _section_centre(header, steps))
    second = column("Steps")
    by_order = {header_order: first, header.sortIndicatorOrder(): second}
    assert by_order[Qt.SortOrder.AscendingOrder] == ["100", "300", "400", ""]  # 400 after 300: numbers, not text
    assert by_order[Qt.SortOrder.DescendingOrder] == ["400", "300", "100", ""]  # empty last both ways
    runs.sort("Test acc", Qt.SortOrder.DescendingOrder)
    assert column("Test acc") == ["0.9000", "0.8000", "0.7000", ""]
    window.session.runs_changed.emit()  # a refresh keeps the sort
    assert column("Test acc") == ["0.9000", "0.8000", "0.7000", ""]
    runs.sort("Started", Qt.SortOrder.AscendingOrder)
    assert runs.run_ids() == ids


def _section_centre(header, index):
    from PySide6.QtCore import QPoint

    return QPoint(header.sectionViewportPosition(index) + header.sectionSize(index) // 2, header.height() // 2)


def test_tags_dialog_for_several_runs(qtbot, window):
    store, runs = window.session.store, window.run_list
    errors = []
    window.session.error.connect(lambda title, message: errors.append(message))  # also a non-blocking dialog
    ids = _runs(store)
    window.session.runs_changed.emit()
    asked = []

    def answer(title, label, text, multiline):
        asked.append((title, text))
        return "baseline, lr-sweep"

    runs.ask_text = answer
    window.session.set_selection([ids[0], ids[1]])
    menu = runs.context_menu()
    tags_action = next(a for a in menu.actions() if a.text() == "Tags…")
    assert tags_action.isEnabled()
    tags_action.trigger()
    assert asked == [("Tags", "")]  # only ids[0] had baseline: nothing common to show
    assert store.tags() == {ids[0]: ["baseline", "lr-sweep"], ids[1]: ["baseline", "lr-sweep"],
                            ids[3]: ["baseline"]}
    runs.ask_text = lambda *a: "lr-sweep"  # baseline taken away from both, kept on ids[3]
    runs.tags_dialog([ids[0], ids[1]])
    assert store.tags() == {ids[0]: ["lr-sweep"], ids[1]: ["lr-sweep"], ids[3]: ["baseline"]}
    runs.set_filter("lr-sweep")
    assert runs.shown_ids() == [ids[1], ids[0]]
    runs.retag([ids[0]], ["two words"], [])
    assert errors and "not a tag" in errors[0] and store.tags()[ids[0]] == ["lr-sweep"]
