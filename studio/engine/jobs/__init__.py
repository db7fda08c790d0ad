"""Process infrastructure: the one process-job base, the typed message protocol, the warm back end
(forkservers), reading queues, and how a ``python -m`` rank leaves."""
