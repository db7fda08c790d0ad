"""``python -m studio.engine.dp_scaling``: the public entry point of a data-parallel scaling rank (kept stable).

The measurement lives in ``studio/engine/tasks/dp_scaling.py``; this module only runs it.
"""

if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising
    from studio.engine.tasks.dp_scaling import main

    exit_without_finalising(main)
