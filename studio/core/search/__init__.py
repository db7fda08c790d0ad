"""Hyperparameter search on Optuna: the search space typed by the registries, the study kept in Optuna's SQLite
storage beside the run store, and the driver that asks Optuna for trials, queues them as runs, feeds the pruner
each trial's validation metric as it is logged and tells Optuna how each ended. Optuna does not own the processes:
the queue's scheduler starts the runs. Optuna is imported only when a study is opened (``pip install
studio[search]``)."""
