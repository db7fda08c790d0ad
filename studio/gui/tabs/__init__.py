"""The main window's extra tabs: a registry by stable id. Each tab is built on first view (the window shows
without importing a tab module), as ``Cls(session, parent)``; a tab module must not import torch at import time
(tests/unit/test_layers.py imports every one; tests/unit/test_task_targets.py resolves every target)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from studio.core.targets import resolve_target


class Tab(Protocol):
    """What the window may ask of a tab widget, both optional (the window checks with ``getattr``):
    ``set_presentation(on)`` follows presentation mode (F11: large fonts, thick lines), and
    ``uses_settings_panel = False`` hides the settings panel while the tab is shown (the Teaching lab)."""

    uses_settings_panel: bool

    def set_presentation(self, on: bool) -> None: ...


@dataclass(frozen=True)
class TabSpec:
    """One extra tab: a stable ``id`` (code, tests and saved state use it; the title may be reworded), the
    title on the tab, the class as ``"module:ClassName"``, and the navigation ``group`` it is listed in
    (``GROUPS``; a group not named there follows them)."""

    id: str
    title: str
    target: str
    group: str = "Analysis"

    def load(self) -> type:
        """The tab's class (imports its module)."""
        return resolve_target(self.target)


# The navigation's groups, in this order (gui/app/navigation.py); the Training view is the first of "Runs". The
# Data page is in "Runs" (a "Data" caption over one "Data" button said it twice, and cost the row's last 40 px).
GROUPS: tuple[str, ...] = ("Runs", "Analysis", "Learn")

EXTRA_TABS: tuple[TabSpec, ...] = (
    TabSpec("landscape", "Landscape", "studio.gui.tabs.landscape:LandscapeTab"),
    TabSpec("evaluation", "Evaluation", "studio.gui.tabs.evaluation:EvaluationTab"),
    TabSpec("data", "Data", "studio.gui.tabs.data:DataPreview", group="Runs"),
    TabSpec("teaching_lab", "Teaching lab", "studio.gui.demos.lab:TeachingLab", group="Learn"),
    TabSpec("compare", "Compare", "studio.gui.tabs.compare:CompareTab", group="Runs"),
    TabSpec("queue", "Queue", "studio.gui.tabs.queue:QueueTab", group="Runs"),
    TabSpec("search", "Search", "studio.gui.tabs.search:SearchTab", group="Runs"),
    TabSpec("compression", "Compression", "studio.gui.tabs.compression:CompressionTab"),
    TabSpec("scaling_laws", "Scaling laws", "studio.gui.tabs.scaling_laws:ScalingLawsTab"),
    TabSpec("parallel_lab", "Parallelism lab", "studio.gui.tabs.parallel_lab:ParallelLab", group="Learn"),
    TabSpec("histograms", "Histograms", "studio.gui.tabs.histograms:HistogramsTab"),
    TabSpec("attention", "Attention", "studio.gui.tabs.attention:AttentionTab"),
    TabSpec("paper_checks", "Paper checks", "studio.gui.tabs.paper_checks:PaperChecksTab", group="Learn"),
)


def find(key: str, tabs: tuple[TabSpec, ...] | list[TabSpec] = EXTRA_TABS) -> TabSpec:
    """The tab whose id or title is ``key`` (KeyError otherwise)."""
    for spec in tabs:
        if key in (spec.id, spec.title):
            return spec
    raise KeyError(key)


def grouped(tabs: tuple[TabSpec, ...] | list[TabSpec] = EXTRA_TABS) -> list[tuple[str, list[TabSpec]]]:
    """The tabs by group: ``GROUPS`` first (those with tabs), then any other group in order of appearance."""
    names = [g for g in GROUPS] + [t.group for t in tabs if t.group not in GROUPS]
    out = [(g, [t for t in tabs if t.group == g]) for g in dict.fromkeys(names)]
    return [(g, specs) for g, specs in out if specs]
