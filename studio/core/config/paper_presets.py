"""Named set-ups from papers that ``studio train --preset NAME`` takes: the settings a paper's recipe sets, as
``section.key`` values, applied before every ``--set`` (which so still wins).

- ``lamb_large_batch``: You et al. 2020 (LAMB): batch 2048, LAMB with its trust ratio, linear warm-up then
  polynomial decay (power 1) to zero, the rate that won the grid of the paper check
  ``you_lamb_large_batch`` on the bundled Fashion-MNIST subset. The warm-up is 10 % of 10 epochs there
  (4 steps of 2048 of 9,000 images an epoch): on another dataset set ``schedule.warmup_steps`` to about a tenth of
  the run's steps.
"""

from __future__ import annotations

from typing import Any

PAPER_PRESETS: dict[str, dict[str, Any]] = {
    "lamb_large_batch": {
        "train.batch_size": 2048, "train.epochs": 10,
        "optimizer.name": "lamb", "optimizer.lr": 0.1,
        "schedule.name": "poly", "schedule.power": 1.0, "schedule.warmup_steps": 4,
    },
}

