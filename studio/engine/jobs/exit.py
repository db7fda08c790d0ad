"""How a ``python -m`` process that joined a torch.distributed group leaves: without interpreter finalisation.

A torchrun rank (``python -m studio.engine.worker``) and a data-parallel scaling rank
(``python -m studio.engine.dp_scaling``) are the Studio processes that run gloo and then go through interpreter
finalisation; there torch's C++ threads can abort a process whose work is done ("terminate called without an
active exception", SIGABRT: seen in CI after the group was destroyed), and the caller then fails the whole job.
multiprocessing's children never finalise (they leave by ``os._exit``); these entry points do the same, after
flushing their output. Everything they produce is written before (rank 0 closed the run store in ``run_rank``;
the scaling result is printed). Torch-free.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import Any


def exit_without_finalising(entry: Callable[[], Any]) -> None:
    """Run ``entry`` and leave with its exit code by ``os._exit``, as multiprocessing's children do."""
    code: int | str | None = 0
    try:
        entry()
    except SystemExit as err:
        code = err.code
    except BaseException:  # noqa: BLE001 - as the interpreter would: the traceback, exit 1
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    if isinstance(code, str):  # sys.exit("message") prints the message and exits 1
        print(code, file=sys.stderr, flush=True)
        code = 1
    os._exit(code or 0)
