"""What the window's menus, toolbar, drops and hand-overs do, as functions of its parts (:class:`Shell`): the
actions table (actions.py) names one per action; the main window only composes and wires them.

``open_path`` is ``studio PATH``, File > Open run…, a drop and a second launch handing over a path (what the path
is, core/runs/open_target.py decides). Messages: information to the status bar, a failure to a dialog only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDialog

from studio import __version__
from studio.core.errors import StudioError
from studio.core.host.paths import resource
from studio.core.vocab import JobState
from studio.gui.app import dialogs
from studio.gui.app.shell import Shell
from studio.gui.app.status_bar import StatusBar
from studio.gui.session.session import Session

if TYPE_CHECKING:
    from studio.core.runs import open_target


def app_icon() -> QIcon:
    """Studio's icon at every size shipped in resources/icons (the SVG scales where QtSvg is present)."""
    icon = QIcon()
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        path = resource("icons", f"studio-{size}.png")
        if path.exists():
            icon.addFile(str(path))
    return icon


def documentation_path() -> Path:
    """The documentation site's mkdocs.yml: its nav is the user guide's contents, its docs/ folder the pages
    (beside resources/ in a checkout and inside the bundle, packaging/studio.spec)."""
    return resource().parent / "mkdocs.yml"


# --- Run ----------------------------------------------------------------------------------------------------
def train(shell: Shell) -> str | None:
    """Start a run, after asking when model and data do not fit together (the warning the panel shows)."""
    warnings = shell.settings.check_fit()
    if warnings and not shell.confirm_warnings(warnings):
        shell.status.show_message("Not started: change the settings the warning names, or train anyway")
        return None
    from studio.gui.app.open_code import ask_to_trust

    if not ask_to_trust(shell, shell.session.config):  # code from a run folder the user has not trusted yet
        return None
    run_id = shell.session.train()
    if run_id is not None and shell.lesson_panel is not None:  # for the class board: the lesson and the student
        shell.lesson_panel.tag_run(run_id)
    return run_id


def toggle_pause(shell: Shell) -> None:
    session = shell.session
    if session.state == JobState.PAUSED:
        session.resume()
    elif session.state == JobState.RUNNING:
        session.pause()


def stop_run(shell: Shell) -> None:
    """Stop the runs (checkpointing); the status bar says how to continue one stopped by mistake."""
    if not shell.session.jobs:
        return
    shell.session.stop()
    shell.status.show_message("Stopping: saving a checkpoint… Resume it from the run list to continue.")


def enqueue(shell: Shell) -> None:
    """Queue a run with these settings (Queue tab), after asking about code from a run folder not trusted yet."""
    from studio.gui.app.open_code import ask_to_trust

    if ask_to_trust(shell, shell.session.config):
        shell.session.enqueue()


def cluster_dialog(shell: Shell) -> QDialog:
    """Run on a cluster…: the current settings as a Slurm + torchrun job (gui/app/cluster_dialog.py)."""
    from studio.gui.app.cluster_dialog import ClusterDialog

    dialog = ClusterDialog(shell.session, shell.window)
    dialog.setModal(False)
    dialog.show()
    return dialog


# --- File ---------------------------------------------------------------------------------------------------
def import_dialog(shell: Shell) -> None:
    path = dialogs.dataset_file(shell.window)
    if path:
        import_path(shell, path)


def import_folder_dialog(shell: Shell) -> None:
    path = dialogs.image_folder(shell.window)
    if path:
        import_path(shell, path)


def import_path(shell: Shell, path: str) -> None:
    """Import a dataset in the background (one import controller for the window, made on first use)."""
    try:
        from studio.gui.widgets.data_import import ImportController
    except ImportError:
        shell.status.show_error("Import", "Importing datasets is not available in this version.")
        return
    if shell.importer is None:
        shell.importer = ImportController(shell.session, shell.window)
        shell.importer.imported.connect(lambda _report: shell.status.clear_errors())
    shell.importer.import_path(path)


def open_path(shell: Shell, path: str) -> str:
    """Open what ``path`` is (``core/open_target.classify`` decides): a run directory (load its config, select
    the run), a run config ``.toml`` (load it), a run store's folder (watch it, read-only), else a dataset to
    import. Returns the kind: ``"run"``, ``"config"``, ``"store"``, ``"import"`` or ``"missing"`` (also when
    a config could not be loaded)."""
    from studio.core.runs import open_target

    target = open_target.classify(path)
    if target.kind == open_target.MISSING:
        shell.status.show_error("Open", f"{target.given} does not exist. Check the path, or drop the file on the "
                                        "window.")
        return open_target.MISSING
    if target.remembered:
        shell.prefs.add_recent(str(target.given))
    if target.kind == open_target.STORE:
        switch_store(shell, str(target.target))  # a run store (`studio /shared/studio`): watch it
    elif target.kind == open_target.IMPORT:
        import_path(shell, str(target.target))
    elif target.kind == open_target.CODE:
        from studio.gui.app.open_code import open_code

        if not open_code(shell, target.target):
            return open_target.MISSING
    elif target.kind == open_target.TENSORBOARD:
        import_logs(shell, str(target.target))
    elif target.kind == open_target.LESSON:
        if not open_lesson(shell, target.target):
            return open_target.MISSING
    elif not load_config(shell, target):
        return open_target.MISSING
    return target.kind


def open_lesson(shell: Shell, path: Path) -> bool:
    """A ``.studio-lesson`` file: read-only, in a strip under the window's pages, on its first step; refused in one
    sentence when it is damaged, changed, too large or from a newer Studio."""
    from studio.core.lessons import lesson_file
    from studio.gui.app.lesson_panel import LessonPanel

    try:
        lesson, _manifest = lesson_file.load(path)
    except StudioError as err:
        shell.status.show_error("Open lesson", str(err))
        return False
    if shell.lesson_panel is not None:
        shell.window.removeDockWidget(shell.lesson_panel)
        shell.lesson_panel.deleteLater()
    panel = LessonPanel(shell, lesson, path.name)
    shell.lesson_panel = panel
    shell.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, panel)
    panel.set_presentation(shell.presentation.on)
    shell.presentation.action.toggled.connect(panel.set_presentation)
    panel.go(0)
    shell.status.show_message(f"Opened the lesson {path.name}: {len(lesson.steps)} steps; Next and Back walk "
                              "through them")
    return True


def save_lesson(shell: Shell) -> None:
    """File › Save as lesson…: steps from what the window shows now, ticked and annotated, to one file."""
    from PySide6.QtWidgets import QFileDialog

    from studio.core.lessons import lesson_file
    from studio.gui.app.lesson_dialog import LessonDialog, steps_from_state

    dialog = LessonDialog(steps_from_state(shell), shell.window)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return
    lesson = dialog.lesson()
    if not lesson.steps:
        shell.status.show_error("Save as lesson", "Tick at least one step to save a lesson.")
        return
    stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in lesson.title).strip() or "lesson"
    path, _ = QFileDialog.getSaveFileName(shell.window, "Save the lesson", f"{stem}{lesson_file.SUFFIX}",
                                          f"Studio lesson (*{lesson_file.SUFFIX})")
    if not path:
        return
    try:
        saved = lesson_file.save(lesson, path)
    except StudioError as err:
        shell.status.show_error("Save as lesson", str(err))
        return
    shell.status.show_message(f"Saved the lesson {saved.name} ({len(lesson.steps)} steps): students open it with "
                              "a double-click or studio " + saved.name)


def class_board(shell: Shell) -> None:
    """File › Class board…: a shared run store's runs of one lesson, ranked, full screen (read-only)."""
    from PySide6.QtWidgets import QFileDialog

    from studio.core.runs.store import RunStore, is_run_store
    from studio.gui.app.class_board import ClassBoard

    home = QFileDialog.getExistingDirectory(shell.window, "The class's shared run store (its folder holds runs.db)",
                                            str(shell.session.store.home))
    if not home:
        return
    if not is_run_store(Path(home)):
        shell.status.show_error("Class board", f"{home} is not a run store: choose the folder the students' Studio "
                                "writes to (it holds runs.db).")
        return
    lesson = shell.lesson_panel.lesson_slug() if shell.lesson_panel is not None else ""
    board = ClassBoard(RunStore(home, read_only=True), lesson)
    shell.class_board = board
    board.showFullScreen()


def import_logs(shell: Shell, logdir: str) -> None:
    """Import a folder of TensorBoard logs as runs in the background (a task with progress and Cancel); the new
    runs are selected when done."""
    from studio.gui.widgets.log_import import LogImporter

    session = shell.session
    if session.store.read_only:
        shell.status.show_error("Import TensorBoard logs", "This window watches another run store read-only; go "
                                "back to your own run store to import logs into it.")
        return
    if shell.log_importer is not None and shell.log_importer.busy:
        shell.status.show_message("TensorBoard logs are still being imported; drop the folder again when done")
        return
    importer = LogImporter(session, shell.window)
    shell.log_importer = importer

    def done(report: Any) -> None:
        session.runs_changed.emit()
        if report["imported"]:
            session.set_selection(list(report["imported"]))
        line = report["line"]
        shell.status.show_message(line[:1].upper() + line[1:], "\n".join(report["foreign"] + report["truncated"]))

    def cancelled() -> None:
        session.runs_changed.emit()  # the runs imported before Cancel stay
        shell.status.show_message("TensorBoard import cancelled; the runs imported before it stay")

    importer.done.connect(done)
    importer.cancelled.connect(cancelled)
    importer.failed.connect(lambda text: shell.status.show_error("Import TensorBoard logs", text))
    shell.status.show_message(f"Importing the TensorBoard logs in {logdir}…")
    importer.start(logdir)


def open_paths(shell: Shell, paths: list[str]) -> None:
    """Paths handed over by a second launch: bring the window forward and open each."""
    window = shell.window
    if window.isMinimized():
        window.showNormal()
    window.raise_()
    window.activateWindow()
    for path in paths:
        open_path(shell, path)


def load_config(shell: Shell, target: open_target.OpenTarget) -> bool:
    """Load the config of a run or config-file target into the forms; a run of this store is selected."""
    from studio.core.runs import open_target

    path = target.config_file
    assert path is not None
    try:
        config = open_target.read_config(path)
    except StudioError as err:
        shell.status.show_error("Cannot load the config", f"{path}: {err}")
        return False
    from studio.core.config.external import is_external

    if is_external(config):  # a run trained outside Studio: selected; its config is no recipe to train
        run = shell.session.find_run(str(target.target))
        if run is not None:
            shell.session.set_selection([run.id])
        shell.status.show_message(f"Opened {target.target.name}, a run trained outside Studio")
        return True
    from studio.gui.app.open_code import ask_to_trust

    ask_to_trust(shell, config)  # someone else's run folder: its code runs only if the user says so
    shell.session.set_config(config)
    shell.settings.reload()
    if target.kind == open_target.CONFIG:
        shell.status.show_message(f"Loaded the config {path.name}; press Train to run it")
        return True
    run = shell.session.find_run(str(target.target))
    if run is None:
        shell.status.show_message(f"Loaded the config of {target.target.name} (a run from another run store)")
        return True
    shell.session.set_selection([run.id])
    shell.status.show_message(f"Opened run {run.id} ({run.status}); its config is loaded")
    return True


def open_dialog(shell: Shell) -> None:
    path = dialogs.run_or_config(shell.window, str(shell.session.store.runs_dir))
    if path:
        open_path(shell, path)


def open_store_dialog(shell: Shell) -> None:
    path = dialogs.run_store_folder(shell.window)
    if path:
        switch_store(shell, path)


def watch_own_store(shell: Shell) -> None:
    """Back to the user's own run store after watching another."""
    switch_store(shell, None)


def switch_store(shell: Shell, home: str | None) -> None:
    """Watch another run store read-only (None: back to the user's own); the title says which."""
    session = shell.session
    if session.open_store(home):
        shell.actions["own_store"].setEnabled(home is not None)
        shell.window.setWindowTitle(f"Studio — watching {home} (read-only)" if home else "Studio")
        shell.run_state.on_state(session.state)  # Train and Queue say again whether runs can start


def export_dialog(shell: Shell) -> None:
    runs = shell.session.selected_runs()
    if not runs:
        shell.status.show_error("Export", "Select one or more runs in the run list first.")
        return
    path = dialogs.metrics_csv(shell.window)
    if path:
        export_metrics(shell.session, shell.status, runs, path)


def export_metrics(session: Session, status: StatusBar, run_ids: list[str], path: str) -> int:
    """Write the runs' metrics to ``path`` as CSV; the number of rows (0 when it could not be written: said)."""
    try:
        rows = session.export_metrics(run_ids, path)
    except (OSError, StudioError) as err:
        status.show_error("Export", f"Could not write {path}: {err}")
        return 0
    status.show_message(f"Exported {rows} metric values of {len(run_ids)} run(s) to {path}")
    return rows


def record_curves(shell: Shell) -> None:
    """Record the curves…: the selected runs' curves growing step by step (or a still), for slides."""
    from studio.gui.plots.curves_reel import reel_of_runs
    from studio.gui.widgets.record_dialog import ask_and_record

    runs = shell.session.selected_runs()
    if not runs:
        shell.status.show_error("Record the curves", "Select one or more runs in the run list first.")
        return
    labels = {r: shell.run_list.names.get(r, r) for r in runs}
    done = ask_and_record("the curves", lambda style: reel_of_runs(shell.session.store, runs, labels, style),
                          "curves", shell.window)
    if done is not None:
        text, failed = done
        shell.status.show_error("Record the curves", text) if failed else shell.status.show_message(text)


def files_dropped_on_run(shell: Shell, run_id: str, paths: list[str]) -> bool:
    """Files dropped on a run's row are classified with that run (Evaluation › Predict shows them); dropped
    between rows they open as anywhere else in the window."""
    if not run_id:
        for path in paths:
            open_path(shell, path)
        return False
    # the Evaluation tab (were it the label of a tab that failed to load, predict_on raises AttributeError)
    evaluation: Any = shell.pages.tab("Evaluation")
    shell.pages.tabs.setCurrentWidget(evaluation)
    return bool(evaluation.predict_on(run_id, paths))


def quit_window(shell: Shell) -> None:
    shell.window.close()


# --- View and Help ------------------------------------------------------------------------------------------
def toggle_presentation(shell: Shell) -> None:
    shell.presentation.toggle()


def open_documentation(shell: Shell) -> bool:
    path = documentation_path()
    if not path.exists() or not (path.parent / "docs").is_dir():
        shell.status.show_error("Documentation", f"The documentation ({path.name} and docs/) is not installed with "
                                                 "this copy.")
        return False
    from studio.gui.app.help_window import show_help

    # a window of Studio's own: works where no program opens .md files (issue 22)
    shell.help_window = show_help(shell.window, path, shell.help_window)
    return True


def about_text(backend: dict[str, Any]) -> str:
    """Versions of Studio, PyTorch (``backend``: the back end's probe, {} while it loads), CUDA, Qt, Python."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    torch_v = backend.get("torch") or "still loading (the back end starts in the background)"
    cuda = backend.get("cuda") or ("none (a CPU build)" if backend else "–")
    gpus = ", ".join(backend.get("gpus", [])) or "none"
    return (f"Studio {__version__}\n\nPyTorch {torch_v}\nCUDA {cuda}\nGPUs: {gpus}\n"
            f"Qt {qVersion()} (PySide6 {pyside_version})\nPython {sys.version.split()[0]}")


def about(shell: Shell) -> None:
    shell.about_box = dialogs.about_box(shell.window, about_text(shell.settings.hardware.info), app_icon())


# --- the back end -------------------------------------------------------------------------------------------
def backend_ready(shell: Shell, info: dict) -> None:
    """The probe's answer: the hardware panel and the status bar say which PyTorch and how many GPUs."""
    shell.settings.hardware.set_backend(info)
    gpus = len(info.get("gpus", []))
    status = shell.status
    status.set_backend(f"Back end ready: PyTorch {info.get('torch')}, {gpus} GPU{'s' if gpus != 1 else ''}")
    if status.message.text() == "Ready":
        status.show_message("The training back end is ready")
    if os.environ.get("STUDIO_STARTUP_REPORT"):
        print(f"studio: back end ready: {status.backend.text()}", flush=True)


def backend_failed(shell: Shell, message: str) -> None:
    shell.status.set_backend("Back end: not available")
    shell.status.show_error("Training back end", message)
