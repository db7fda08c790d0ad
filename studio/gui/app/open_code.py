"""A Python file handed to the window (dropped, File > Open…, ``studio my_net.py``): its models and datasets
go into the Model and Data forms, read by parsing it (core/usercode/reader.py), never by running it; and a run
folder whose code this user has not trusted is asked about before anything may import that code."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox

from studio.core.config import RunConfig
from studio.core.errors import StudioError
from studio.core.runs import open_target
from studio.core.usercode.reader import DATASET, MODEL, CodeFile, read_file
from studio.gui.app.shell import Shell

BIG_FILE = 100_000  # bytes: a file this large is parsed on a thread (about 0.1 s or more on a busy CPU)


class _Reader(QObject):
    """Parses one file on a thread of its own and hands the result to the window's thread."""

    done = Signal(object)  # a CodeFile, or the StudioError that says why not

    def start(self, path: Path) -> None:
        def work() -> None:
            try:
                self.done.emit(read_file(path))
            except StudioError as err:
                self.done.emit(err)

        threading.Thread(target=work, name="studio-read-code", daemon=True).start()


def open_code(shell: Shell, path: Path) -> bool:
    """Put the file's first model (and first dataset) into the forms; False, with the reason in a dialog, when
    it cannot be read or defines neither. A large file is parsed off the window's thread: True at once, the forms
    follow when it is read."""
    if path.stat().st_size > BIG_FILE:
        reader = _Reader(shell.window)
        def done(result: CodeFile | StudioError) -> None:
            apply_code(shell, path, result)
            reader.deleteLater()

        reader.done.connect(done)
        shell.status.show_message(f"Reading {path.name}…")
        reader.start(path)
        return True
    try:
        return apply_code(shell, path, read_file(path))
    except StudioError as err:
        return apply_code(shell, path, err)


def apply_code(shell: Shell, path: Path, code: CodeFile | StudioError) -> bool:
    """The forms set from a parsed file, or its one sentence in a dialog."""
    if isinstance(code, StudioError):
        shell.status.show_error("Cannot use the file", str(code))
        return False
    models, datasets = code.of_role(MODEL), code.of_role(DATASET)
    if not models and not datasets:
        shell.status.show_error("Cannot use the file", f"{path.name} defines no nn.Module subclass and no Dataset, "
                                                        "nor a function that returns one")
        return False
    session = shell.session
    for section, found in (("model", models), ("data", datasets)):
        if found:
            session.set_choice(section, "python")
            session.set_param(section, "path", str(path.resolve()))
            session.set_param(section, "class", found[0].name)
            session.set_param(section, "args", {})
    shell.settings.reload()
    what = [f"{len(found)} {role}{'s' if len(found) != 1 else ''} ({', '.join(d.name for d in found)})"
            for role, found in (("model", models), ("dataset", datasets)) if found]
    shell.status.show_message(f"Read {path.name} without running it: {' and '.join(what)}; set its arguments, "
                              "then press Train")
    return True


def ask_to_trust(shell: Shell, config: RunConfig) -> bool:
    """Before a run folder's code can run: ask, naming the files and their hashes. True when nothing needed
    asking or the user trusted it; a No leaves the code untrusted (Studio refuses to import it, in one
    sentence, until the user trusts it)."""
    from studio.core.usercode.trust import run_folder_of, sha256_of, trust

    files = open_target.untrusted_code(config)
    if not files:
        return True
    run = run_folder_of(files[0])
    listed = "\n".join(f"  {p.name}  (SHA-256 {sha256_of(p)[:16]}…)" for p in files)
    answer = QMessageBox.question(
        shell.window, "Run this folder's code?",
        f"The run in {run} trains code from its own folder:\n{listed}\n\nStudio imports it only if you trust it "
        "(read it first: it runs with your rights). Trust this code?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
    if answer != QMessageBox.StandardButton.Yes:
        shell.status.show_message("The run's code is not trusted: Studio shows its settings but will not run it")
        return False
    trust([sha256_of(p) for p in files])
    return True
