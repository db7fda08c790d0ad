"""The main window's file dialogs and questions, one function each: they return what the person chose (a path,
"" or a yes/no) and do nothing with it, so the window only acts on the answer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

DATASET_FILES = "Datasets (*.zip *.tar.gz *.tgz *.csv *.npz *.npy *.gz *.idx* *.txt);;All (*)"


def dataset_file(parent: QWidget) -> str:
    path, _ = QFileDialog.getOpenFileName(parent, "Import a dataset", "", DATASET_FILES)
    return path


def image_folder(parent: QWidget) -> str:
    return QFileDialog.getExistingDirectory(parent, "Import a folder of images")


def run_or_config(parent: QWidget, start: str) -> str:
    path, _ = QFileDialog.getOpenFileName(parent, "Open a run, a run config, your model's Python file or a lesson",
                                          start, "Run configs (*.toml);;Your model or data (*.py);;"
                                          "Lessons (*.studio-lesson);;All (*)")
    return path


def run_store_folder(parent: QWidget) -> str:
    return QFileDialog.getExistingDirectory(parent, "Watch a run store (its folder holds runs.db)")


def metrics_csv(parent: QWidget) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, "Export the selected runs' metrics", "metrics.csv", "CSV (*.csv)")
    return path


def train_anyway(parent: QWidget, warnings: list[str]) -> bool:
    """Model and data do not fit together (core/config/fit_check.py): train anyway? Cancel is the default."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Train anyway?", "\n\n".join(warnings),
                      QMessageBox.StandardButton.Cancel, parent)
    box.addButton("Train anyway", QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box.exec() != QMessageBox.StandardButton.Cancel and box.buttonRole(box.clickedButton()) == \
        QMessageBox.ButtonRole.AcceptRole


def stop_and_quit(parent: QWidget) -> bool:
    answer = QMessageBox.question(parent, "Quit Studio", "A run is in progress. Stop it (saving a checkpoint) "
                                  "and quit?")
    return answer == QMessageBox.StandardButton.Yes


def about_box(parent: QWidget, text: str, icon: QIcon) -> QMessageBox:
    """The non-modal About box (closes itself; Esc closes it)."""
    box = QMessageBox(QMessageBox.Icon.Information, "About Studio", text, QMessageBox.StandardButton.Ok, parent)
    box.setIconPixmap(icon.pixmap(64, 64))
    box.setModal(False)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()
    return box
