"""Issue 33.4 in the window (offscreen, quick: the runs are made with the store API): every picker names a run as
the run list does; a view follows the run selected, names a selected run it cannot show and says why; a run picked
in a view's own picker becomes the selection; a name too long for its box keeps its model and its number."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.contracts import layout
from studio.core.runs import histograms
from studio.gui.widgets.run_picker import RunBox

ONE_RUN_VIEWS = ("histograms", "attention", "landscape", "evaluation", "compression")


@pytest.fixture
def runs(window):
    """An MLP run with histograms, a gpt_lm run and a ViT run (each "finished" with a final.pt), and the same
    MLP settings again: kind → run id."""
    store = window.session.store
    kinds = {"mlp": ["train.epochs=3"], "gpt_lm": ["model.name=gpt_lm", "data.name=fortunes"],
             "vit": ["model.name=vit"], "mlp_again": ["train.epochs=3"]}
    ids = {}
    for kind, overrides in kinds.items():
        run = store.create_run(RunConfig().with_overrides(overrides))
        layout.final_path(run.dir).write_bytes(b"weights")
        store.set_status(run.id, "finished")
        ids[kind] = run.id
    record = {"step": 0, "name": "layers.0.weight", "kind": "weight", "min": -1.0, "max": 1.0, "num": 4, "sum": 0.0,
              "sum_sq": 1.0, "counts": [2, 2]}
    histograms.append(store.get(ids["mlp"]).dir, [record])
    window.session.runs_changed.emit()
    return ids


def test_every_picker_names_a_run_as_the_run_list_does(window, runs, monkeypatch):
    names = window.run_list.names
    assert names[runs["mlp_again"]] == f"{names[runs['mlp']]} #2"  # the same settings twice, told apart
    views = {view: window.pages.tab(view) for view in (*ONE_RUN_VIEWS, "compare", "scaling_laws")}
    monkeypatch.setattr(views["attention"], "compute", lambda: None)  # no job: names, not maps, are tested here
    for kind, run_id in runs.items():
        window.session.set_selection([run_id])
        for view in ONE_RUN_VIEWS:
            box = views[view].run_box
            if box.findData(run_id) >= 0:
                assert box.currentData() == run_id and box.currentText() == names[run_id], (view, kind)
            else:  # a view that cannot show it names it, and why
                assert box.currentData() is None and box.absent == (names[run_id], views[view].absent_reason)
        for view in ("compare", "scaling_laws"):
            window.tabs.setCurrentWidget(views[view])  # Compare reads the store when it is shown
            assert views[view].picker.checked() == [run_id] and views[view].picker.names() == names
    assert views["attention"].run_box.absent[0] == names[runs["mlp_again"]]  # an MLP: no attention


def test_a_run_picked_in_a_view_is_the_selection_everywhere(window, runs, monkeypatch):
    evaluation, landscape = window.pages.tab("evaluation"), window.pages.tab("landscape")
    window.session.set_selection([runs["mlp"]])
    box = evaluation.run_box
    index = box.findData(runs["vit"])
    box.setCurrentIndex(index)
    box.activated.emit(index)  # what a person's choice in the list sends
    assert window.session.selected_runs() == [runs["vit"]] and window.run_list.selected_ids() == [runs["vit"]]
    assert landscape.run_box.currentData() == runs["vit"]


def test_a_long_name_keeps_its_model_and_number_in_a_narrow_box(qtbot):
    box = RunBox("The run")
    qtbot.addWidget(box)
    name = "gpt_lm layers=1 heads=2 d_model=16 · fortunes max_len=12 tokenizer=char · 1 epoch · batch 256 #3"
    box.set_runs([("r1", name, "finished")], "r1")
    box.setMinimumContentsLength(4)
    box.resize(160, box.sizeHint().height())
    box.show()
    shown = box.shown_text()
    assert shown != name and shown.startswith("gpt_lm") and shown.endswith("#3")
    assert box.fontMetrics().horizontalAdvance(shown) <= box.width()
    assert box.toolTip().splitlines()[:2] == [name, "r1 · finished"]  # whole, with its id, in the tooltip
    box.show_absent("mlp widths=[16] · moons n_samples=300 · 2 epochs", "not a Transformer: no attention to show")
    box.resize(420, box.height())
    shown = box.shown_text()  # the reason whole, the name shortened by the rule
    assert box.currentData() is None and shown.startswith("mlp") and shown.endswith(" — not a Transformer: no "
                                                                                    "attention to show")
    assert box.toolTip().startswith("mlp widths=[16] · moons n_samples=300 · 2 epochs\nnot a Transformer")
