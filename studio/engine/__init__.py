"""Training processes: the loop, its callbacks, the launcher and the background tasks. No Qt; torch only inside
the processes that compute.

Its packages are layered like core's (``LAYERS``, ground floor first; tests/unit/test_layer_order.py): the loop
knows no callback, a callback knows no launcher, the tasks sit on everything they run.
"""

LAYERS: tuple[tuple[str, ...], ...] = (
    ("jobs", "loop"),  # child processes and their queues; the training loop and what a step needs
    ("callbacks", "async_sgd", "parallel", "dataload", "allreduce"),  # the loop's features; the lab's engines
    ("dlrm",),  # DLRM's hybrid parallelism, on the all-reduce package's traffic counting
    ("training",),  # a run assembled from its config, its ranks started, supervised, queued, run under torchrun
    ("replay", "attach"),  # a finished run loaded back; a model trained elsewhere attached to a run
    ("tasks",),  # one module per background task (core/contracts/tasks.py names them)
    ("worker", "dp_scaling", "port"),  # the public ``python -m`` entry points; the GUI's port (engine_port)
)
