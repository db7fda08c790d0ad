"""A parameter server with asynchronous SGD over ``torch.distributed.rpc``, and Hogwild in shared memory.

- ``ledger.py``: the staleness bookkeeping and the staleness-aware learning rate (torch-free);
- ``model.py``: the data, the MLP, and evaluating weight snapshots;
- ``server.py``: the parameter server (the model, an SGD optimizer, a lock; rpc functions ``pull``/``push``);
- ``node.py``: one rpc process (``python -m studio.engine.async_sgd.node``): the server (rank 0) or a worker;
- ``hogwild.py``: one process (``python -m studio.engine.async_sgd.hogwild``) spawning k shared-memory workers;
- ``launch.py``: the parent: the port check, the processes in one process group, watching them, the result.
"""
