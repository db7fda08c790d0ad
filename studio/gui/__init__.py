"""The Qt user interface. Holds no training state; never imports torch at start-up, and no engine module at all:
it names background work by the task catalog (``core/contracts/tasks.py``) and hands it to the session.

Its packages are layered (``LAYERS``, ground floor first; tests/unit/test_layer_order.py): ``session/`` is the
ground every view may use, ``app/`` the roof that composes the views into the window.

pyqtgraph loads when the first plot is made (after the window shows: the Training tab's curves are built
just after, the other tabs on first view), through a one-time import hook installed here that

- hides ``cuda.bindings`` while pyqtgraph imports: its RawImageWidget probes the CUDA Python bindings at
  import (for a GPU image path Studio does not use), which costs ~1 s of start-up on a busy machine; a later
  torch import still finds the real package;
- then gives pyqtgraph the current theme's colours (``theme.plot_options``), so the first plot is drawn in them.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Any

LAYERS: tuple[tuple[str, ...], ...] = (
    ("session",),  # the session and its jobs, the bridge, the job binding, message wording, the theme
    ("widgets",),  # small widgets the views share: forms, pickers, the job panel, the paper-check panel
    ("plots",),  # pyqtgraph views (the curves, landscapes, Gantt charts) over models without Qt
    ("panels", "demos"),  # the settings, run list and hardware panels; the Teaching lab's demo views
    ("tabs", "parallel"),  # the window's views by id; the Parallelism lab's pages
    ("app",),  # the window shell: main window, navigation, actions, dialogs, settings, start-up
)


class _PyqtgraphLoader(importlib.abc.Loader):
    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: Any) -> None:
        hide = "cuda.bindings" not in sys.modules
        if hide:
            sys.modules["cuda.bindings"] = None  # type: ignore[assignment]  # None in sys.modules: ImportError
        try:
            self.real.exec_module(module)
        finally:
            if hide and sys.modules.get("cuda.bindings", 0) is None:
                del sys.modules["cuda.bindings"]
        from studio.gui.session import theme

        theme.plot_options()


class _PyqtgraphHook(importlib.abc.MetaPathFinder):
    """Finds pyqtgraph as usual, once, and wraps its loader in :class:`_PyqtgraphLoader`."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "pyqtgraph":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _PyqtgraphLoader(spec.loader)
        return spec


if "pyqtgraph" not in sys.modules and not any(isinstance(f, _PyqtgraphHook) for f in sys.meta_path):
    sys.meta_path.insert(0, _PyqtgraphHook())
