"""Ring all-reduce against a central reduce (``studio allreduce``): p rank processes sum one vector three ways,
each rank counting the bytes it sends and receives and timing itself (wall and CPU).

- ``traffic``: the point-to-point sends and receives that count their bytes, and the per-rank span recorder;
- ``ring``: the ring all-reduce (Patarasuk & Yuan 2009): reduce-scatter, then all-gather, with ``isend/irecv``;
- ``server``: the central reduce (every rank sends its vector to rank 0, which sums and sends the sum back);
- ``rank``: a rank process (``python -m``); ``launch``: the request's checks, the ranks, the result;
- ``check``: the runner of the paper check ``sergeev_ring_allreduce``.

``traffic`` and the rank group (``engine/jobs/rank_group.py``) are also what the DLRM engine (``engine/dlrm``)
builds on.
"""
