"""Issue 36: a seed group's numbers as one — the run list's accuracy cells tell the group's mean ± std and n on
hover, and Compare's Seed groups tab lists each group with its n, seeds and every final metric's mean ± std."""

import numpy as np

from studio.core.config import RunConfig

ACCS = (0.91, 0.89, 0.93)


def _runs(store) -> tuple[list[str], str]:
    ids = []
    for seed, acc in enumerate(ACCS):
        run = store.create_run(RunConfig().with_overrides([f"train.seed={seed}"]))
        store.set_status(run.id, "finished", summary={"test_acc": acc})
        ids.append(run.id)
    other = store.create_run(RunConfig().with_overrides(["optimizer.lr=0.5"]))
    store.set_status(other.id, "finished", summary={"test_acc": 0.5})
    return ids, other.id


def test_the_run_list_and_compare_tell_a_seed_groups_mean_std_and_n(qtbot, window):
    store, runs = window.session.store, window.run_list
    ids, other = _runs(store)
    window.session.runs_changed.emit()
    want = f"{np.mean(ACCS):.4f} ± {np.std(ACCS, ddof=1):.4f} (n=3)"
    col = runs.tree.headerItem().text(2)
    assert col == "Test acc"
    for run_id in ids:
        tip = runs._item_of[run_id].toolTip(2)
        assert want in tip and "× 3 seeds" in tip and "0, 1, 2" in tip
    assert runs._item_of[other].toolTip(2) == ""  # other settings: no group

    tab = window.pages.tab("Compare")
    window.tabs.setCurrentWidget(tab)
    window.session.set_selection([*ids, other])
    qtbot.waitUntil(lambda: tab.groups.rowCount() == 1)
    assert "1 seed group" in tab.summary.text()
    headers = [tab.groups.horizontalHeaderItem(c).text() for c in range(tab.groups.columnCount())]
    acc = headers.index("test_acc")
    assert tab.groups.item(0, 1).text() == "3" and tab.groups.item(0, 2).text() == "0, 1, 2"
    assert tab.groups.item(0, acc).text() == want.removesuffix(" (n=3)")
    assert "95 % interval" in tab.groups.item(0, acc).toolTip() and tab.no_groups.isHidden()
    window.session.set_selection([ids[0], other])
    qtbot.waitUntil(lambda: tab.groups.rowCount() == 0)
    assert not tab.no_groups.isHidden()
