"""Scheduling a set of jobs on a simulated GPU cluster (the GPU-cluster-scheduling lecture): a discrete-event
replay of jobs under FIFO, shortest-job-first, shortest-remaining-time-first and least-attained-service
(Tiresias-style), with each job's intervals on its GPUs and the job-completion-time statistics. Torch-free,
Qt-free: ``jobs`` (a job and its checks), ``policies`` (the orders), ``replay`` (the event loop), ``stats``
(JCT, makespan, utilisation), ``traces`` (a synthetic heavy-tailed trace), ``from_runs`` (jobs from the run
store's finished runs), ``study`` (the request → result of the CLI, the task and the GUI)."""
