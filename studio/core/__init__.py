"""The domain: configs, registries, datasets, models, optimizers, the run store, the analyses' maths. No Qt, no
processes.

Its packages are layered: a package imports only packages on a lower floor (``LAYERS``, ground floor first;
``tests/unit/test_layer_order.py`` holds the code to it, package ``__init__`` files included). The root keeps only
the three leaves every floor uses: ``vocab.py`` (the names), ``errors.py`` (the exceptions), ``targets.py`` (the
``"module:name"`` strings).
"""

LAYERS: tuple[tuple[str, ...], ...] = (
    ("vocab", "errors", "targets"),  # the leaves
    ("numbers",),  # numbers as people type and read them
    ("contracts",),  # every feature's typed request and result, the job vocabulary, the messages, the task
    #                  catalog, the run folder's layout, the form of a registry entry
    ("host", "maths"),  # the machine (processes, folders, threads, devices); maths on arrays and tensors
    ("usercode",),  # a user's own model or dataset file: read with ast, imported by path in workers, copied, trusted
    ("datasets", "models", "optim"),  # the registries (text data is a kind of dataset: datasets/text/)
    ("config",),  # RunConfig and what is decided from a config alone
    ("runs",),  # the run store, its queue, runs built on other runs
    ("estimates", "landscape", "scheduling", "search"),  # what a config costs; loss landscapes; the queue's
    #                                                     policies; hyperparameter search on the queue (Optuna)
    ("demos",),  # the teaching demos' maths
    ("checks",),  # the paper checks, which run the demos
    ("lessons",),  # a teacher's sequence of demos, data, configs and runs: one .studio-lesson file
)
