"""The side panels built from the registries and the plain config sections."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QPushButton, QScrollArea, QVBoxLayout, QWidget

from studio.core.config import train_params
from studio.gui.forms import PlainForm, RegistryForm
from studio.gui.panels.hardware import HardwarePanel
from studio.gui.session import registry_for


class SettingsPanels(QScrollArea):
    """Data, model, optimizer, schedule, training and hardware, top to bottom."""

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWidgetResizable(True)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        self.forms: dict[str, RegistryForm] = {}
        for section, title in (("data", "Data"), ("model", "Model"), ("optimizer", "Optimizer"),
                               ("schedule", "Learning-rate schedule")):
            form = RegistryForm(session, section, registry_for(section))
            self.forms[section] = form
            box = self._group(title, form)
            if section == "model":
                self.summary_button = QPushButton("Summary…")
                self.summary_button.setObjectName("model_summary")
                self.summary_button.setToolTip("Layers, output shapes, parameter counts and FLOPs per sample")
                self.summary_button.clicked.connect(self.show_model_summary)
                box.layout().addWidget(self.summary_button)
            layout.addWidget(box)
        self.train_form = PlainForm(session, "train", train_params())
        layout.addWidget(self._group("Training", self.train_form))
        self.hardware = HardwarePanel(session)
        layout.addWidget(self._group("Hardware", self.hardware))
        layout.addStretch(1)
        self.setWidget(inner)
        self.setMinimumWidth(300)
        session.datasets_changed.connect(self.forms["data"].refresh_entries)

    def show_model_summary(self) -> QWidget:
        from studio.gui.model_summary import ModelSummaryDialog

        dialog = ModelSummaryDialog(self.session.config.copy(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    @staticmethod
    def _group(title: str, widget: QWidget) -> QGroupBox:
        box = QGroupBox(title)
        box.setObjectName(f"group_{title.split()[0].lower()}")
        lay = QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(widget)
        return box

    def reload(self) -> None:
        """Show the session's config again (after a config was loaded)."""
        for form in self.forms.values():
            form.rebuild()
        self.train_form.reload()
        self.hardware.load_from_config()
