"""The Qt user interface. Holds no training state; never imports torch at start-up.

pyqtgraph is imported here, once, with ``cuda.bindings`` hidden: its RawImageWidget probes the CUDA Python
bindings at import (for a GPU image path Studio does not use), which costs ~1 s of start-up on a busy machine.
"""

import sys


def _import_pyqtgraph_without_cuda() -> None:
    if "pyqtgraph" in sys.modules:
        return
    hide = "cuda.bindings" not in sys.modules
    if hide:
        sys.modules["cuda.bindings"] = None  # type: ignore[assignment]  # None in sys.modules: ImportError
    try:
        import pyqtgraph  # noqa: F401
    finally:
        if hide and sys.modules.get("cuda.bindings", 0) is None:
            del sys.modules["cuda.bindings"]  # a later torch import finds the real package


_import_pyqtgraph_without_cuda()
