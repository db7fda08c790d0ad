"""Text in the window: a dropped .txt becomes a dataset, an lstm_lm trains on it, and the Generate box
under the run list continues a seed in the background."""

from __future__ import annotations

from tests.gui.test_drop_import import drop

LINES = [f"the man number {i} bites the dog in the park" for i in range(30)] + \
        [f"a dog walks to the park with man {i}" for i in range(30)]


def test_drop_text_train_lstm_and_generate(qtbot, window, tmp_path):
    path = tmp_path / "headlines.txt"
    path.write_text("\n".join(LINES) + "\n\n")
    assert drop(window, path)
    qtbot.waitUntil(lambda: not window.shell.importer.busy, timeout=60_000)
    session = window.session
    assert session.config.data.name == "headlines", window.status.last_error
    assert "60 lines" in window.status.message.text() and "1 line skipped" in window.status.message.text()
    box = window.generate_box
    assert not box.isVisible()  # no run selected yet

    session.set_choice("model", "lstm_lm")
    for key, value in (("embedding", 8), ("hidden", 16)):
        session.set_param("model", key, value)
    session.set_param("train", "epochs", 1)
    session.set_param("train", "batch_size", 32)
    ended = []
    session.run_ended.connect(lambda run_id, status, message: ended.append((run_id, status)))
    window.train_action.trigger()
    qtbot.waitUntil(lambda: bool(ended), timeout=120_000)
    run_id, status = ended[0]
    assert status == "finished", window.status.last_error
    assert "val/perplexity" in session.store.metrics(run_id)

    session.set_selection([run_id])
    qtbot.waitUntil(box.isVisible, timeout=5_000)
    box.seed.setText("the man")
    box.words.setValue(5)
    box.button.click()
    assert box.busy and box.button.text() == "Cancel"
    qtbot.waitUntil(lambda: not box.busy, timeout=60_000)
    assert box.result is not None, window.status.last_error
    assert len(box.result["words"]) == 5 and "<oov>" not in box.result["words"]
    assert box.result["text"].startswith("the man ") and "<b>" in box.output.text()
