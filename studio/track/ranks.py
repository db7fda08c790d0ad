"""Which process of a distributed job this is: ``RANK`` as torchrun, Lightning and the Hugging Face Trainer set it
(``SLURM_PROCID`` under srun), 0 for a script on its own."""

from __future__ import annotations

import os


def current_rank() -> int:
    for var in ("RANK", "SLURM_PROCID"):
        text = os.environ.get(var, "").strip()
        if text.isdigit():
            return int(text)
    return 0
