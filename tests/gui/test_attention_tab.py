"""The Attention tab: a ViT run's snapshots fill a layer × head grid, the slider replays the steps without a new
job, the full view shows the rollout over the image or one head with its tokens on the axes."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.contracts.attention import AttentionRequest
from studio.core.runs.store import RunStore
from studio.gui.tabs import find
from studio.gui.tabs.attention import AttentionTab
from tests.gui.conftest import new_session
from tests.unit.landscape_runs import train_run
from tests.unit.test_attention import train

TINY_VIT = ["data.name=fashion_mnist_small", "model.name=vit", "model.d_model=16", "model.depth=2", "model.heads=2",
            "train.epochs=1", "train.batch_size=500", "train.attention_every=6", "train.histogram_every=0",
            "train.trajectory_snapshots=false"]


def test_the_tab_is_registered_without_torch():
    assert find("attention").title == "Attention" and find("Attention").load() is AttentionTab


def test_the_view_builds_from_a_result_and_the_slider_redraws_every_head(qtbot, tmp_path):
    """Quick: a run trained in this process, its maps computed here, handed to the view as a job would."""
    from studio.engine.tasks.attention import compute

    run_dir = tmp_path / "vit-run"
    train(run_dir, TINY_VIT)  # 18 steps: snapshots at 0, 6, 12, 18
    result = compute(AttentionRequest(str(run_dir), image=1))
    session = new_session(RunStore(tmp_path))
    try:
        tab = AttentionTab(session)
        qtbot.addWidget(tab)
        tab.resize(1000, 650)
        tab.show()
        tab.show_result(result)
        assert tab.slider.maximum() == 3 and tab.step_label.text() == "step 18"
        assert len(tab.cells) == 2 and tab.cells[0][0].image.shape == (4, 4)  # [CLS] over 4 × 4 patches
        before = [c.image.copy() for row in tab.cells for c in row]
        tab.slider.setValue(1)
        assert tab.step_label.text() == "step 6" and "step 6" in tab.focus.getPlotItem().titleLabel.text
        after = [c.image for row in tab.cells for c in row]
        assert all(not np.allclose(a, b) for a, b in zip(after, before, strict=True))
        np.testing.assert_allclose(tab.overlay.image.sum(), 1.0, atol=1e-4)  # the rollout over the patches
        assert len(tab.words) == 17  # a label per token in the embedding plot
    finally:
        session.shutdown(wait_s=10)


@pytest.mark.slow
def test_a_vit_run_fills_the_grid_and_the_slider_replays_its_steps(qtbot, tmp_path):
    run_dir = train_run(tmp_path, TINY_VIT)  # 18 steps: snapshots at 0, 6, 12, 18
    session = new_session(RunStore(tmp_path))
    try:
        tab = AttentionTab(session)
        qtbot.addWidget(tab)
        tab.resize(1100, 700)
        tab.show()
        assert tab.run_box.currentData() == run_dir.name and tab.pages.currentIndex() == 1
        qtbot.waitUntil(lambda: tab.result is not None, timeout=60_000)  # validation image 0, all steps
        r = tab.result
        assert r["steps"] == [0, 6, 12, 18] and r["precomputed"] and len(tab.cells) == 2 and len(tab.cells[0]) == 2
        assert tab.slider.maximum() == 3 and tab.slider.value() == 3 and tab.step_label.text() == "step 18"
        assert tab.overlay.isVisible() and tab.overlay.image.shape == (4, 4)  # rollout over the 4 × 4 patches
        last = tab.cells[1][0].image.copy()
        tab.slider.setValue(0)  # no new job: the frames are all there
        assert not tab.busy and tab.step_label.text() == "step 0"
        assert not np.allclose(tab.cells[1][0].image, last)  # the heads changed while training
        tab.focus_box.setCurrentIndex(tab.focus_box.findText("layer 2 head 1"))
        assert not tab.overlay.isVisible() and tab.focus_image.image.shape == (17, 17)
        ticks = tab.focus.getPlotItem().getAxis("left")._tickLevels[0]  # a token per row (the bottom may thin)
        assert [label for _, label in ticks] == ["[CLS]"] + [f"{r},{c}" for r in range(4) for c in range(4)]
        np.testing.assert_allclose(tab.focus_image.image.sum(axis=1), 1.0, atol=1e-3)  # rows sum to 1

        tab.source.setCurrentIndex(tab.source.count() - 1)  # a test image, chosen by index
        tab.image_index.setValue(5)
        assert tab.image_index.isVisible() and not tab.text.isVisible()
        tab.compute()
        qtbot.waitUntil(lambda: tab.result is not None and tab.result["input"].startswith("test image 5"),
                        timeout=60_000)
        assert not tab.result["precomputed"] and len(tab.result["frames"]) == 4
    finally:
        session.shutdown(wait_s=10)


# --- issue 33.3: the view shows the run picked, never another's maps --------------------------------------------
def fake_maps(run_id: str) -> dict:
    """A job's result for ``run_id``: one layer, one head, three tokens."""
    maps = np.full((1, 1, 3, 3), 1 / 3, np.float32)
    frame = {"step": 0, "maps": maps, "rollout": maps[0, 0], "patch_maps": None, "patch_rollout": None,
             "embedding": np.zeros((0, 2)), "variance": [0.5, 0.5]}
    return {"run_id": run_id, "model": "gpt_lm", "kind": "text", "input": "a b c", "tokens": ["a", "b", "c"],
            "oov": [], "causal": True, "grid": None, "image": None, "embedding_labels": [], "embedding_input": [],
            "steps": [0], "frames": [frame], "precomputed": True, "seconds": 0.0}


def test_no_maps_of_another_run_and_a_new_look_when_the_run_saves_weights(qtbot, tmp_path, monkeypatch):
    """Quick (no job runs): the requests the tab makes are recorded, results handed over as a job would."""
    from studio.core.config import RunConfig
    from studio.core.contracts import layout

    store = RunStore(tmp_path)
    text = store.create_run(RunConfig().with_overrides(["model.name=gpt_lm", "data.name=fortunes"]))
    layout.final_path(text.dir).write_bytes(b"weights")
    vit = store.create_run(RunConfig().with_overrides(TINY_VIT))  # training: nothing saved yet
    session = new_session(store)
    try:
        tab = AttentionTab(session)
        qtbot.addWidget(tab)
        asked: list = []
        monkeypatch.setattr(tab.panel, "start", lambda handle: asked.append(handle))
        monkeypatch.setattr(session, "start", lambda request: request)
        tab.show()
        session.set_selection([text.id])
        assert asked and asked[-1].run_dir == str(text.dir)
        tab.show_result(fake_maps(text.id))
        assert tab.cells and tab.result is not None
        asked.clear()
        session.set_selection([vit.id])  # the ViT run, still training
        assert tab.run_box.currentData() == vit.id and tab.run_box.currentText() == vit.name
        assert tab.result is None and not tab.cells and tab.focus_image.image is None  # not the text run's maps
        assert asked == [] and f"{vit.name} has saved no weights yet" in tab.info.text()
        tab.show_result(fake_maps(text.id))  # a late result of the text run is not drawn under the ViT's name
        assert tab.result is None and not tab.cells
        layout.final_path(vit.dir).write_bytes(b"weights")  # it finished: final.pt exists
        session.run_ended.emit(vit.id, "finished", "")
        assert asked and asked[-1].run_dir == str(vit.dir)  # its maps are asked for without pressing Show
        asked.clear()
        tab.hide()
        layout.checkpoint_path(vit.dir, 18).write_bytes(b"more weights")  # saved more while the view was hidden
        tab.show()
        assert asked and asked[-1].run_dir == str(vit.dir)
        asked.clear()
        tab.hide()
        tab.show()  # nothing new saved: no new job
        assert asked == []
    finally:
        session.shutdown(wait_s=10)


@pytest.mark.slow  # two ViT runs trained here and three real jobs: about a minute on a busy 2-core machine
def test_the_maps_follow_the_run_picked_and_come_when_it_saves_weights(qtbot, tmp_path):
    import shutil

    from studio.core.config import RunConfig

    store = RunStore(tmp_path)
    config = RunConfig().with_overrides(TINY_VIT)
    first = store.create_run(config)
    train(first.dir, TINY_VIT)  # snapshots at 0, 6, 12, 18 and final.pt
    second = store.create_run(config.with_overrides(["train.seed=1"]))  # training: no weights saved yet
    session = new_session(store)
    try:
        tab = AttentionTab(session)
        qtbot.addWidget(tab)
        tab.resize(1000, 650)
        tab.show()
        session.set_selection([first.id])
        qtbot.waitUntil(lambda: tab.result is not None, timeout=60_000)
        assert tab.result["run_id"] == first.id and tab.cells
        session.set_selection([second.id])  # a run with nothing saved: nothing of the first run stays
        assert tab.run_box.currentData() == second.id
        assert tab.result is None and not tab.cells and tab.focus_image.image is None
        assert "saved no weights yet" in tab.info.text() and "no checkpoints" not in tab.info.text()
        assert second.name in tab.info.text() or "seed 1" in tab.info.text()
        scratch = tmp_path / "scratch"
        train(scratch, [*TINY_VIT, "train.seed=1"])
        for part in ("attention", "checkpoints"):
            shutil.copytree(scratch / part, second.dir / part, dirs_exist_ok=True)
        session.run_ended.emit(second.id, "finished", "")  # it ended: its maps come without pressing Show
        qtbot.waitUntil(lambda: tab.result is not None, timeout=60_000)
        assert tab.result["run_id"] == second.id and tab.cells
        tab.hide()
        session.set_selection([first.id])
        tab.show()
        qtbot.waitUntil(lambda: tab.result is not None and tab.result["run_id"] == first.id, timeout=60_000)
    finally:
        session.shutdown(wait_s=10)
