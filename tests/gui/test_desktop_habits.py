"""The habits of a desktop app: remembered settings, the single-instance hand-off, menus and shortcuts,
opening paths, themes, presentation mode, About/Documentation and tooltips."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import uuid

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QDesktopServices, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QSlider,
    QTabBar,
    QWidget,
)

from studio.core.config import RunConfig
from studio.core.runs.store import RunStore
from studio.gui.app import commands, dialogs, pages
from studio.gui.app.main_window import MainWindow
from studio.gui.app.settings import MAX_RECENT, SettingsStore
from studio.gui.app.single_instance import InstanceServer, send_to_running, server_name
from studio.gui.session import theme
from studio.gui.tabs import EXTRA_TABS, TabSpec
from tests.gui.conftest import new_session


@pytest.fixture
def prefs(tmp_path):
    """Settings in a temporary INI file, never the user's."""
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def make_window(qtbot, prefs: SettingsStore, store: RunStore | None = None) -> MainWindow:
    win = MainWindow(new_session(store or RunStore()), probe_backend=False, prefs=prefs)
    win.shell.confirm_close = lambda: True
    qtbot.addWidget(win)
    return win


@pytest.fixture
def window(qtbot, prefs):
    win = make_window(qtbot, prefs)
    win.show()
    yield win
    win.close()
    theme.apply("light")


# --- settings ----------------------------------------------------------------------------------
def test_settings_round_trip_through_a_restart(qtbot, prefs):
    first = make_window(qtbot, prefs)
    first.show()
    screen = first.screen().availableGeometry()  # restoreGeometry keeps the window on the screen
    first.resize(min(first.minimumSizeHint().width() + 5, screen.width() - 5), first.minimumSizeHint().height() + 30)
    size = (first.width(), first.height())
    assert size != (1280, 800)
    first.splitter.setSizes([420, 590])
    first.training_splitter.setSizes([400, 250])
    main_sizes, training_sizes = first.splitter.sizes(), first.training_splitter.sizes()
    first.settings.forms["optimizer"].combo.setCurrentText("sgd")
    first.session.set_param("optimizer", "momentum", 0.8)
    first.settings.forms["data"].combo.setCurrentText("moons")
    first.themes.apply("dark")
    first.close()

    second = make_window(qtbot, prefs)  # a new session: what it shows comes from the settings
    second.show()
    config = second.session.config
    assert config.optimizer.name == "sgd" and config.optimizer.params["momentum"] == 0.8
    assert config.data.name == "moons" and config.model.name == RunConfig().model.name
    assert second.settings.forms["optimizer"].combo.currentText() == "sgd"
    assert (second.width(), second.height()) == size
    assert second.splitter.sizes() == main_sizes and second.training_splitter.sizes() == training_sizes
    assert second.themes.actions["dark"].isChecked() and theme.current() == "dark"
    second.close()
    theme.apply("light")


def test_remembered_choice_that_no_longer_exists_is_skipped(qtbot, prefs):
    prefs.qs.setValue("last/data", '{"name": "a_deleted_import", "params": {}}')
    prefs.qs.setValue("last/optimizer", '{"name": "sgd", "params": {"lr": "not a number", "momentum": 0.5}}')
    win = make_window(qtbot, prefs)
    assert win.session.config.data.name == RunConfig().data.name
    assert win.session.config.optimizer.name == "sgd" and win.session.config.optimizer.params["momentum"] == 0.5


def test_recent_files_newest_first_without_duplicates(prefs, tmp_path):
    for i in range(MAX_RECENT + 3):
        prefs.add_recent(str(tmp_path / f"f{i}.toml"))
    prefs.add_recent(str(tmp_path / "f5.toml"))
    files = prefs.recent_files()
    assert len(files) == MAX_RECENT and files[0].endswith("f5.toml") and files[1].endswith(f"f{MAX_RECENT + 2}.toml")
    assert len(set(files)) == len(files)
    with pytest.raises(ValueError):
        prefs.theme = "purple"


def test_default_settings_live_beside_studio_home(studio_home):
    store = SettingsStore()
    assert store.qs.fileName() == str(studio_home / "settings.ini")


# --- single instance ---------------------------------------------------------------------------
def test_second_launch_hands_its_paths_to_the_first(qtbot, tmp_path):
    name = f"studio-test-{uuid.uuid4().hex[:8]}"
    assert send_to_running(["x"], name=name, timeout_ms=300) is False  # nobody listening yet
    server = InstanceServer(name=name)
    assert server.listen()
    with qtbot.waitSignal(server.received, timeout=5000) as got:
        answered = send_to_running(["data/pets", str(tmp_path)], name)
    assert answered is True
    assert got.args[0] == [os.path.abspath("data/pets"), str(tmp_path)]
    with qtbot.waitSignal(server.received, timeout=5000) as got:  # a plain `studio`: just show the window
        assert send_to_running([], name)
    assert got.args[0] == []
    server.close()
    assert send_to_running(["x"], name=name, timeout_ms=300) is False


def test_studio_path_in_a_second_process_reaches_the_open_window(qtbot, window, tmp_path, studio_home):
    config = RunConfig().with_overrides(["optimizer.name=sgd", "train.epochs=7"])
    config.save(tmp_path / "handed.toml")
    server = InstanceServer()  # the name comes from the user and STUDIO_HOME, as in run_gui
    assert server.name == server_name() and server.listen()
    server.received.connect(lambda paths: commands.open_paths(window.shell, paths))
    env = dict(os.environ, STUDIO_HOME=str(studio_home), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-m", "studio", str(tmp_path / "handed.toml")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=60_000)  # a failed hand-off opens a window
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    assert proc.returncode == 0, proc.stderr.read()
    assert "handed over" in proc.stderr.read()
    assert window.session.config.train.epochs == 7 and window.session.config.optimizer.name == "sgd"


# --- menus, shortcuts, opening and exporting ---------------------------------------------------
def test_menus_hold_the_actions_with_their_shortcuts(window):
    def texts(menu):
        return [a.text() for a in menu.actions() if not a.isSeparator()]

    assert texts(window.menus["file"]) == ["Import data…", "Import folder…", "Open run…", "Open &recent",
                                           "Open run store…", "Back to my run store", "Export metrics…",
                                           "Record the curves…", "Save as lesson…", "Class board…", "Quit"]
    assert texts(window.menus["run"]) == ["Train", "Pause", "Stop", "Add to queue", "Run on a cluster…"]
    assert texts(window.menus["view"]) == ["Presentation mode", "&Theme"]
    assert texts(window.menus["theme"]) == ["Follow the system", "Light", "Dark"]
    assert texts(window.menus["help"]) == ["Documentation", "About Studio"]
    shortcuts = {a: a.shortcut() for a in (window.train_action, window.stop_action, window.pause_action,
                                            window.presentation_action, window.open_action,
                                            window.export_action, window.import_action,
                                            window.import_folder_action, window.queue_action)}
    assert [s.toString() for s in shortcuts.values()] == ["Ctrl+Return", "Ctrl+.", "Space", "F11", "Ctrl+O",
                                                          "Ctrl+E", "Ctrl+I", "Ctrl+Shift+I", "Ctrl+Shift+Return"]
    assert window.quit_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Quit)
    assert window.docs_action.shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)
    everything = [a for m in window.menus.values() for a in m.actions() if not a.isSeparator() and not a.menu()]
    assert all(a.toolTip() and a.toolTip() != a.text().replace("&", "") for a in everything)


def test_f11_key_toggles_presentation_mode(qtbot, window):
    curves = window.curves_pane.curves
    curves.add_run("r1", "r1")
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert window.presentation.on and window.isFullScreen() and window.presentation_action.isChecked()
    assert window.settings.isHidden()  # advanced controls out of the way
    assert curves.presentation and curves.items[("r1", "train/loss")].opts["pen"].widthF() == 4
    assert curves.plots["loss"].titleLabel.opts["size"] == "20pt"
    assert curves.key.font().pointSize() == 15 and "r1" in curves.key.text()  # the key outside the plots
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert not window.presentation.on and not window.isFullScreen() and not window.settings.isHidden()
    assert curves.items[("r1", "train/loss")].opts["pen"].widthF() == 2


def test_presentation_reaches_every_tab_that_supports_it(qtbot, prefs, monkeypatch):
    seen: list[bool] = []

    class ProjectorTab(QWidget):
        def __init__(self, session, parent=None):
            super().__init__(parent)

        def set_presentation(self, on: bool) -> None:
            seen.append(on)

    sys.modules[__name__].ProjectorTab = ProjectorTab
    monkeypatch.setattr(pages, "EXTRA_TABS", (TabSpec("projector", "Projector", f"{__name__}:ProjectorTab"),))
    win = make_window(qtbot, prefs)
    win.show()
    win.presentation_action.trigger()
    assert seen == []  # not shown yet, so not built: it learns the mode when it is built
    win.pages.tab("Projector")
    win.presentation_action.trigger()
    assert seen == [True, False]


def test_open_a_run_directory_loads_its_config_and_selects_it(qtbot, window, tmp_path):
    store = window.session.store
    run = store.create_run(RunConfig().with_overrides(["model.name=cnn", "train.epochs=3"]))
    (run.dir / "checkpoints").mkdir(exist_ok=True)
    assert commands.open_path(window.shell, str(run.dir)) == "run"
    assert window.session.config.model.name == "cnn" and window.session.selected_runs() == [run.id]
    assert window.settings.forms["model"].combo.currentText() == "cnn"
    window.session.set_selection([])
    # File > Open run… picks the config.toml
    assert commands.open_path(window.shell, str(run.dir / "config.toml")) == "run"
    assert window.session.selected_runs() == [run.id]
    assert window.prefs.recent_files()[0] == str(run.dir / "config.toml")


def test_open_run_menu_loads_a_config_file(qtbot, window, tmp_path, monkeypatch):
    path = tmp_path / "lr.toml"
    RunConfig().with_overrides(["optimizer.lr=0.0123"]).save(path)
    monkeypatch.setattr(dialogs.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.open_action.trigger()
    assert window.session.config.optimizer.params["lr"] == pytest.approx(0.0123)
    assert "lr.toml" in window.status.message.text()


def test_open_path_of_data_imports_and_bad_paths_say_why(qtbot, window, tmp_path, monkeypatch):
    imported: list[str] = []
    monkeypatch.setattr(commands, "import_path", lambda _shell, path: imported.append(path))
    (tmp_path / "table.csv").write_text("x,label\n1,a\n")
    assert commands.open_path(window.shell, str(tmp_path / "table.csv")) == "import"
    assert imported == [str(tmp_path / "table.csv")]
    assert commands.open_path(window.shell, str(tmp_path / "nowhere")) == "missing"
    assert "does not exist" in window.status.last_error[1]
    (tmp_path / "broken.toml").write_text("[optimizer\n")
    assert commands.open_path(window.shell, str(tmp_path / "broken.toml")) == "missing"
    assert "TOML" in window.status.last_error[1]


def test_export_writes_the_selected_runs_metrics(qtbot, window, tmp_path, monkeypatch):
    store = window.session.store
    ids = []
    for k in (1, 2):
        run = store.create_run(RunConfig(), name=f"run{k}")
        store.log_metrics(run.id, [(s, "train/loss", k / s, 0.0) for s in range(1, 4)] + [(3, "val/acc", 0.5, 0.0)])
        ids.append(run.id)
    window.export_action.trigger()
    assert "Select one or more runs" in window.status.last_error[1]  # nothing selected yet
    window.session.set_selection(ids)
    out = tmp_path / "metrics.csv"
    monkeypatch.setattr(dialogs.QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    window.export_action.trigger()
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 8 and {r["run_name"] for r in rows} == {"run1", "run2"}
    second = [r for r in rows if r["run_id"] == ids[1] and r["metric"] == "train/loss"]
    assert [(int(r["step"]), float(r["value"])) for r in second] == [(1, 2.0), (2, 1.0), (3, 2 / 3)]


def test_about_names_the_versions_and_docs_open(qtbot, window, monkeypatch):
    commands.backend_ready(window.shell, {"torch": "9.8.7", "cuda": "12.4", "cpus": 2, "gpus": ["Test GPU"]})
    assert "back end is ready" in window.status.message.text()
    window.about_action.trigger()
    text = window.shell.about_box.text()
    for part in ("Studio 0.", "PyTorch 9.8.7", "CUDA 12.4", "Test GPU", "Qt 6.", "PySide6 6."):
        assert part in text
    opened = []  # the user guide opens in Studio's own window, not through a desktop handler for .md (issue 22)
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    window.docs_action.trigger()
    help_window = window.shell.help_window
    source = help_window.browser.source().toLocalFile()
    assert source.endswith("docs/index.md") and os.path.exists(source) and opened == []
    assert help_window.isVisible() and "Getting started" in help_window.page_titles()
    assert "User guide" in help_window.browser.toPlainText()


# --- themes ------------------------------------------------------------------------------------
def contrast(a: QColor, b: QColor) -> float:
    def lum(c: QColor) -> float:
        ch = [x / 255 for x in (c.red(), c.green(), c.blue())]
        ch = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_theme_switch_restyles_window_and_plots(qtbot, window):
    curves = window.curves_pane.curves
    for i in range(8):  # the eighth Okabe–Ito colour is black
        curves.add_run(f"r{i}", f"r{i}")
    ink = curves.items[("r7", "train/loss")]
    axis = curves.plots["loss"].getAxis("left")
    window.themes.actions["dark"].trigger()
    pal = QApplication.instance().palette()
    assert pal.color(QPalette.ColorRole.Window).lightness() < 80
    assert curves.graphics.backgroundBrush().color().lightness() < 60
    assert axis.textPen().color().lightness() > 180
    assert ink.opts["pen"].color().name() == theme.INK_ON_DARK
    assert window.prefs.theme == "dark"
    curves.add_run("r8", "r8")  # a run added while dark is drawn light as well
    curves.clear()
    curves.show_runs({f"x{i}": {} for i in range(8)})
    assert curves.items[("x7", "train/loss")].opts["pen"].color().name() == theme.INK_ON_DARK
    window.themes.actions["light"].trigger()
    assert QApplication.instance().palette().color(QPalette.ColorRole.Window).lightness() > 200
    assert curves.graphics.backgroundBrush().color().lightness() > 240
    assert curves.items[("x7", "train/loss")].opts["pen"].color().name() == theme.INK_ON_LIGHT
    assert axis.textPen().color().lightness() < 80


@pytest.mark.parametrize("name", ["light", "dark"])
def test_theme_text_and_plot_colours_are_readable(name):
    pal = theme.palette(name)
    r = QPalette.ColorRole
    for fg, bg in ((r.Text, r.Base), (r.WindowText, r.Window), (r.ButtonText, r.Button),
                   (r.HighlightedText, r.Highlight), (r.ToolTipText, r.ToolTipBase)):
        assert contrast(pal.color(fg), pal.color(bg)) >= 4.5, (name, fg)
    plot = theme.PLOT_COLOURS[name]
    background = QColor(plot.background)
    assert contrast(QColor(plot.foreground), background) >= 7
    from studio.gui.plots.palette import OKABE_ITO

    theme.apply(name)
    drawn = [QColor(theme.curve_colour(c)) for c in OKABE_ITO]
    theme.apply("light")
    # every curve colour stands out from the background (yellow on white is the palette's weakest: ~1.2)
    assert min(contrast(c, background) for c in drawn) > 1.15
    assert sum(contrast(c, background) >= 3 for c in drawn) >= 4


def test_system_theme_follows_the_desktop(qtbot, window, monkeypatch):
    monkeypatch.setattr(theme, "system_prefers_dark", lambda app=None: True)
    window.themes.actions["system"].trigger()
    assert theme.current() == "dark" and window.prefs.theme == "system"
    monkeypatch.setattr(theme, "system_prefers_dark", lambda app=None: False)
    window.themes.follow_system()  # what the desktop's colorSchemeChanged signal calls
    assert theme.current() == "light"


# --- tooltips ----------------------------------------------------------------------------------
CONTROLS = (QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QSlider, QAbstractItemView)


def test_every_control_has_a_tooltip(window):
    missing = []
    for spec in EXTRA_TABS:  # tabs are built on first view: build them all to see every control
        window.pages.tab(spec.id)
    for w in window.findChildren(QWidget):
        if not isinstance(w, CONTROLS) or w.objectName().startswith("qt_"):  # every tab, extra ones too
            continue
        if type(w).__name__ in ("QToolBarExtension", "QTabBar") or isinstance(w.parent(), QTabBar):
            continue
        if isinstance(w.parent().parent(), QComboBox) or isinstance(w, QHeaderView):  # parts of another control
            continue
        tip = w.toolTip() or (w.defaultAction().toolTip() if hasattr(w, "defaultAction") and w.defaultAction()
                              else "")
        if not tip:
            text = w.text() if hasattr(w, "text") else ""
            missing.append(f"{type(w).__name__} {w.objectName()!r} {text!r} in {type(w.parent()).__name__}")
    assert missing == [], "\n".join(missing)
    assert all(window.tabs.tabToolTip(i) for i in range(window.tabs.count()))
