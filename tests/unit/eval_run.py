"""One short trained run of the bundled data for the evaluation, predict and export tests (CLI and GUI):
trained once per test process, in its own run store, removed at exit."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from tests.unit.landscape_runs import train_run

SHORT = ["train.epochs=1", "model.widths=64", "train.batch_size=256"]


@lru_cache(maxsize=1)
def shared_run() -> tuple[Path, Path]:
    """(store home, run directory) of a finished one-epoch run of the bundled Fashion-MNIST subset."""
    home = Path(tempfile.mkdtemp(prefix="studio-eval-run-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return home, train_run(home, SHORT)
