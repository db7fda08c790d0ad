"""Screenshots of every demo in presentation mode, for the docs:

    QT_QPA_PLATFORM=offscreen python packaging/demo_screenshots.py [OUT_DIR [DEMO ...]]   # → docs/screenshots

Each demo runs with its default settings as a background job (``studio/gui/demos/screenshots.py`` takes the
pictures; this script gives it the engine, which the GUI never imports itself).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    from studio.engine.port import engine
    from studio.gui.demos.screenshots import take

    take(engine(), Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"), sys.argv[2:] or None)
