"""A Python file dropped on the window: the Model and Data forms show its classes and their arguments, read by
parsing it — the window's process imports neither the user's code nor torch; a bad file is one sentence; a run
folder whose code this user has not trusted is asked about before its code may run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QMessageBox, QSpinBox

from studio.core.usercode.trust import sha256_of, trusted_hashes
from tests.gui.test_drop_import import drop
from tests.own_code_files import write_user_files

PROBE = r"""
import json, sys, time
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QComboBox, QLabel
app = QApplication([])
from studio.engine.port import engine
from studio.gui.app.main_window import MainWindow
from studio.gui.session.session import Session
win = MainWindow(Session(engine=engine()), probe_backend=False)
win.show()
mime = QMimeData()
mime.setUrls([QUrl.fromLocalFile(sys.argv[1])])
pos = QPointF(20, 20)
started = time.perf_counter()
QApplication.sendEvent(win, QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                            Qt.KeyboardModifier.NoModifier))
QApplication.sendEvent(win, QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                       Qt.KeyboardModifier.NoModifier))
app.processEvents()
form = win.settings.forms["model"]
classes = form.findChild(QComboBox, "model_code_class")
shown = time.perf_counter() - started
print(json.dumps({
    "model": win.session.config.model.name, "classes": [classes.itemText(i) for i in range(classes.count())],
    "note": form.findChild(QLabel, "model_code_note").text(), "seconds": shown,
    "torch": sorted(m for m in sys.modules if m.split(".")[0] == "torch"),
    "user": sorted(m for m in sys.modules if m.startswith("studio_usercode") or m == "my_models"),
}), flush=True)
import os
os._exit(0)
"""


def test_a_dropped_file_builds_the_form_without_importing_it_or_torch(tmp_path: Path) -> None:
    model, _ = write_user_files(tmp_path / "tree")
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "STUDIO_HOME": str(tmp_path / "home"),
           "PYTHONPATH": ":".join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(model)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["model"] == "python" and seen["classes"] == ["MLP", "small_cnn"]
    assert "Studio fills in input_shape, num_classes" in seen["note"]
    assert seen["torch"] == [] and seen["user"] == []


def test_the_form_sets_the_class_and_its_arguments(window, tmp_path: Path) -> None:
    model, data = write_user_files(tmp_path / "tree")
    assert drop(window, model) and drop(window, data)
    config = window.session.config
    assert (config.model.name, config.model.params["class"]) == ("python", "MLP")
    assert (config.data.name, config.data.params["class"]) == ("python", "Quarters")
    form = window.settings.forms["model"]
    width = form.findChild(QSpinBox, "model_arg_width")
    assert width.value() == 64
    width.setValue(24)
    assert config.model.params["args"] == {"width": 24}
    classes = form.findChild(QComboBox, "model_code_class")
    classes.setCurrentText("small_cnn")
    assert config.model.params == {"path": str(model.resolve()), "class": "small_cnn", "args": {}}
    assert form.findChild(QSpinBox, "model_arg_filters").value() == 8
    assert form.findChild(QSpinBox, "model_arg_width") is None
    data_form = window.settings.forms["data"]
    assert data_form.findChild(QLabel, "data_code_note").text().endswith("Studio fills in split")


def test_a_file_with_a_syntax_error_is_one_sentence(window, tmp_path: Path, monkeypatch) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nclass Net(torch.nn.Module)\n    pass\n")
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(window.status, "show_error", lambda title, text: said.append((title, text)))
    assert drop(window, bad)
    assert said and said[0][1].startswith("bad.py line 2: ") and len(said[0][1].splitlines()) == 1
    assert window.session.config.model.name != "python"
    path_field = window.settings.forms["model"].findChild(QLineEdit, "model_code_path")
    assert path_field is None  # the catalog model's form stays


def test_opening_someone_elses_run_asks_before_its_code_may_run(window, tmp_path: Path, monkeypatch) -> None:
    model, data = write_user_files(tmp_path / "tree")
    run = tmp_path / "elsewhere" / "runs" / "r1"
    (run / "code").mkdir(parents=True)
    (run / "code" / "my_models.py").write_text(model.read_text())
    (run / "config.toml").write_text(f'[model]\nname = "python"\npath = "code/my_models.py"\nclass = "MLP"\n'
                                     f'[data]\nname = "python"\npath = "{data}"\nclass = "Quarters"\n')
    asked: list[str] = []
    answers = iter([QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return next(answers)

    monkeypatch.setattr(QMessageBox, "question", question)
    digest = sha256_of(run / "code" / "my_models.py")
    assert drop(window, run)
    assert len(asked) == 1 and "my_models.py" in asked[0] and digest[:16] in asked[0]
    assert digest not in trusted_hashes(window.session.store.home)
    assert window.session.config.model.params["path"] == str(run / "code" / "my_models.py")
    assert drop(window, run)  # asked again, and trusted this time
    assert len(asked) == 2 and digest in trusted_hashes(window.session.store.home)
    assert drop(window, run) and len(asked) == 2  # trusted: not asked again


def test_a_large_file_is_read_off_the_windows_thread(window, qtbot, tmp_path: Path) -> None:
    from studio.gui.app.open_code import BIG_FILE

    model, _ = write_user_files(tmp_path / "tree")
    big = tmp_path / "big_models.py"
    blocks = "".join(f"\n\nclass Extra{i}(nn.Module):\n    def __init__(self, width: int = {i}):\n"
                     f"        super().__init__()\n" for i in range(2000))
    big.write_text(model.read_text() + blocks)
    assert big.stat().st_size > BIG_FILE
    assert drop(window, big)
    assert window.status.message.text() == "Reading big_models.py…"  # the drop returned before the parse
    qtbot.waitUntil(lambda: window.session.config.model.name == "python", timeout=30_000)
    classes = window.settings.forms["model"].findChild(QComboBox, "model_code_class")
    assert classes.count() == 2002 and classes.currentText() == "MLP"


def test_the_input_pipeline_page_asks_for_the_current_code_dataset(window, tmp_path: Path) -> None:
    from studio.core.config import RunConfig
    from tests.own_code_files import user_model

    model, data = write_user_files(tmp_path / "tree")
    window.session.set_config(RunConfig().with_overrides(user_model(model, data)))
    lab = window.pages.tab("parallel_lab")
    window.tabs.setCurrentWidget(lab)
    page = lab.page("dataload")
    page.source.setCurrentIndex(1)  # the current dataset
    request = page.request()
    assert request.dataset == "python" and request.data_params is not None
    assert request.data_params["class"] == "Quarters" and request.folder == ""


def test_train_with_a_required_argument_left_empty_is_one_sentence_and_no_run(window, tmp_path: Path) -> None:
    from studio.core.config import RunConfig

    path = tmp_path / "needs.py"
    path.write_text("from torch import nn\n\nclass Net(nn.Module):\n    def __init__(self, num_classes, width: int):\n"
                    "        super().__init__()\n")
    window.session.set_config(RunConfig().with_overrides(["model.name=python", f"model.path={path}",
                                                          "model.class=Net"]))
    said: list[tuple[str, str]] = []
    window.session.error.connect(lambda title, text: said.append((title, text)))
    runs_before = len(window.session.store.list())
    assert window.session.train() is None
    assert said == [("Cannot start training", "Net needs a value for width (model.args.width): it has no default")]
    assert len(window.session.store.list()) == runs_before  # nothing created, nothing started
    assert window.session.config.model.params["path"] == str(path)  # the settings are kept as they were


def test_train_asks_before_running_untrusted_code_and_starts_nothing_on_no(window, tmp_path: Path,
                                                                          monkeypatch) -> None:
    from studio.core.config import RunConfig
    from studio.gui.app import commands

    model, data = write_user_files(tmp_path / "tree")
    run = tmp_path / "elsewhere" / "r2"
    (run / "code").mkdir(parents=True)
    (run / "code" / "my_models.py").write_text(model.read_text())
    (run / "config.toml").write_text("[train]\nepochs = 1\n")
    window.session.set_config(RunConfig().with_overrides([
        "model.name=python", f"model.path={run / 'code' / 'my_models.py'}", "model.class=MLP"]))
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a: asked.append(a[2]) or QMessageBox.StandardButton.No)
    runs_before = len(window.session.store.list())
    assert commands.train(window.shell) is None
    assert len(asked) == 1 and "my_models.py" in asked[0]
    assert len(window.session.store.list()) == runs_before
    assert "not trusted" in window.status.message.text()
