"""Every Python process Studio starts imports the Studio that started it, whatever folder it is started from.

``python -c`` and ``python -m`` put the working folder first on ``sys.path``: started from the folder that holds a
clone called ``studio/``, a child imported that folder as an empty namespace package and died before it could
report (issue 33: "rank 0 exited with code 1"). ``PYTHONSAFEPATH=1`` (Python 3.11+) keeps the working folder off
the path of every child, whatever starts it (multiprocessing's spawn and forkserver, ``subprocess``, the queue's
scheduler); a Studio that is not installed (run from its source folder) puts that folder on ``PYTHONPATH`` instead,
so its children still find it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path


def studio_root() -> Path:
    """The folder holding the running ``studio`` package."""
    import studio

    return Path(studio.__file__).resolve().parent.parent


def installed() -> bool:
    """Whether this Python finds Studio without the working folder (a normal or an editable install): a
    ``studio-*.dist-info`` (or ``.egg-info``) folder on ``sys.path``, looked for as ``importlib.metadata`` would,
    without its imports (email, zipfile, csv: a fifth of the window's start-up)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        if any(name.lower().startswith("studio-") and name.endswith((".dist-info", ".egg-info")) for name in names):
            return True
    return False


def immune_to_working_folder(environ: MutableMapping[str, str] | None = None) -> None:
    """Set the environment every child inherits (``os.environ`` by default) so that none takes a package from
    its working folder; call once, early, in the process that starts the others."""
    env = os.environ if environ is None else environ
    env["PYTHONSAFEPATH"] = "1"
    if not installed():
        root = str(studio_root())
        paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        if root not in paths:
            env["PYTHONPATH"] = os.pathsep.join([root, *paths])
