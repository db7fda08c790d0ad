"""``python -m studio.engine.training.agent …``: torchrun (``torch.distributed.run``, the same options) for
the Slurm script that ``studio export-config --torchrun`` writes (core/config/slurm.py). The difference: a SIGTERM
or SIGINT to the agent (Slurm's signal before the time limit, ``scancel --signal=TERM``) is the normal way
a cluster run stops: torchrun passes it to its ranks and waits for them (each stops with a checkpoint), then
this says so in one line and exits 128+signal, instead of torchrun's ``SignalException`` traceback."""

from __future__ import annotations

import sys


def main() -> None:
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.run import main as torchrun

    try:
        torchrun()
    except SignalException as err:
        print(f"studio: torchrun agent stopped by {err.sigval.name} (passed on to its ranks, which stop with "
              "a checkpoint)", file=sys.stderr)
        sys.exit(128 + int(err.sigval))


if __name__ == "__main__":
    main()
