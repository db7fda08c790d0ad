"""What the warm back end's forkserver imports before it forks anything (``engine/jobs/backend.py``): torch
and the code every job runs, so a child starts with it all loaded. Nothing here may start a thread,
touch CUDA or run a parallel torch operation (the children fork from this state)."""

from __future__ import annotations

import importlib
import os
import sys

# What OpenMP saw: libgomp reads its wait policy from the environment when torch first loads it (below).
WAIT_POLICY = os.environ.get("OMP_WAIT_POLICY", "").upper()
TORCH_LOADED_HERE = "torch" not in sys.modules

MODULES = (
    "torch",
    "torch.fx.experimental.symbolic_shapes",  # sympy: a vmapped loss's first call imported it (~1 s, a landscape)
    "torch._dynamo",  # the first optimizer of a process imports it: 1-3 s of every warm Train's first point (+40 MB)
    "numpy",
    "studio.engine.training.worker",  # training ranks: trainer, models, optimizers, datasets
    "studio.engine.tasks.landscape",
    "studio.engine.loop.augment",
    "studio.core.demos.race",
    "studio.core.demos.linear_neuron",
    "studio.core.demos.playground",
    "studio.core.demos.large_batch",
    "studio.core.demos.noise_scale",
    "studio.core.demos.regularisation",
    "studio.core.estimates.model_summary",
    "studio.core.datasets.importers",
)

for _name in MODULES:
    try:
        importlib.import_module(_name)
    except ImportError:  # a missing optional piece only makes that job start colder
        pass
