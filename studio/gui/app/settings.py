"""What Studio remembers between sessions (QSettings): window geometry and splitters, the last dataset,
model and optimizer, recent files, the theme, and which metrics the curves plot.

Where: ``$STUDIO_SETTINGS`` (an INI file) if set, else ``$STUDIO_HOME/settings.ini`` when STUDIO_HOME is set
(so tests and separate run stores keep separate settings), else Qt's native place for "Studio/Studio".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10
REMEMBERED_SECTIONS = ("data", "model", "optimizer")
THEMES = ("system", "light", "dark")


def default_settings() -> QSettings:
    path = os.environ.get("STUDIO_SETTINGS") or (
        str(Path(os.environ["STUDIO_HOME"]) / "settings.ini") if os.environ.get("STUDIO_HOME") else "")
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, "Studio", "Studio")


class SettingsStore:
    """A thin, typed layer over one QSettings."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qs = settings if settings is not None else default_settings()

    def sync(self) -> None:
        self.qs.sync()

    # --- window ----------------------------------------------------------------------------
    def save_window(self, window: Any, splitters: dict[str, Any]) -> None:
        self.qs.setValue("window/geometry", window.saveGeometry())
        self.qs.setValue("window/state", window.saveState())
        for key, splitter in splitters.items():
            self.qs.setValue(f"splitters/{key}", splitter.saveState())

    def restore_window(self, window: Any, splitters: dict[str, Any]) -> bool:
        """Restore geometry, toolbar state and splitters; False when nothing was saved."""
        geometry = self.qs.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            window.restoreGeometry(geometry)
        state = self.qs.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            window.restoreState(state)
        for key, splitter in splitters.items():
            saved = self.qs.value(f"splitters/{key}")
            if isinstance(saved, QByteArray) and not saved.isEmpty():
                splitter.restoreState(saved)
        return isinstance(geometry, QByteArray)

    # --- last choices ----------------------------------------------------------------------
    def save_choices(self, config: Any) -> None:
        for section in REMEMBERED_SECTIONS:
            choice = getattr(config, section)
            self.qs.setValue(f"last/{section}", json.dumps({"name": choice.name, "params": choice.params}))

    def last_choices(self) -> dict[str, tuple[str, dict[str, Any]]]:
        out = {}
        for section in REMEMBERED_SECTIONS:
            raw = self.qs.value(f"last/{section}")
            try:
                data = json.loads(raw)
                out[section] = (str(data["name"]), dict(data.get("params") or {}))
            except (TypeError, ValueError, KeyError):
                continue
        return out

    def restore_choices(self, session: Any) -> list[str]:
        """Pick the remembered entries in ``session`` (skipping ones that no longer exist, e.g. a deleted
        imported dataset, and values that no longer validate), the model with its suggested train settings
        (core/config/suggested.py: [train] is not remembered), then the remembered optimizer's values; returns the
        sections restored."""
        from studio.core.errors import StudioError
        from studio.gui.session.session import registry_for

        restored = []
        for section, (name, params) in self.last_choices().items():
            registry = registry_for(section)
            if name not in registry.names():
                continue
            try:
                session.set_choice(section, name, suggest=section == "model")  # its suggested train settings
            except StudioError:
                continue
            for key, value in params.items():
                try:
                    session.set_param(section, key, value)
                except (StudioError, KeyError, TypeError, ValueError):
                    pass
            restored.append(section)
        return restored

    # --- recent files ----------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        raw = self.qs.value("recent/files")
        try:
            files = json.loads(raw) if isinstance(raw, str) else []
        except ValueError:
            files = []
        return [str(f) for f in files if isinstance(f, str)][:MAX_RECENT]

    def add_recent(self, path: str) -> list[str]:
        path = os.path.abspath(path)
        files = [path] + [f for f in self.recent_files() if f != path]
        files = files[:MAX_RECENT]
        self.qs.setValue("recent/files", json.dumps(files))
        return files

    def clear_recent(self) -> None:
        self.qs.remove("recent/files")

    # --- theme -----------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        value = self.qs.value("view/theme", "system")
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        if value not in THEMES:
            raise ValueError(f"theme must be one of {THEMES}, not {value!r}")
        self.qs.setValue("view/theme", value)

    # --- curves ----------------------------------------------------------------------------
    @property
    def metric_choices(self) -> dict[str, bool]:
        """Which metrics the curves plot, where the user chose (metric → plotted; the others take the default)."""
        raw = self.qs.value("curves/metrics")
        try:
            data = json.loads(raw) if isinstance(raw, str) else {}
        except ValueError:
            data = {}
        return {str(k): bool(v) for k, v in data.items()} if isinstance(data, dict) else {}

    @metric_choices.setter
    def metric_choices(self, choices: dict[str, bool]) -> None:
        self.qs.setValue("curves/metrics", json.dumps({str(k): bool(v) for k, v in choices.items()}))

    @property
    def seed_band(self) -> str:
        """How the curves draw a seed group (``curve_groups.BAND_CHOICES``; the mean ± std until chosen)."""
        from studio.gui.plots.curve_groups import BAND_CHOICES

        value = self.qs.value("curves/seed_band")
        return value if isinstance(value, str) and value in BAND_CHOICES else "std"

    @seed_band.setter
    def seed_band(self, kind: str) -> None:
        self.qs.setValue("curves/seed_band", str(kind))
