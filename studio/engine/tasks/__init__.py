"""One module per background task: ``run(request, progress) -> result``, named by the catalog in
``core/contracts/tasks.py``; each runs in a child process (``engine/jobs/process_job.py``)."""
