"""``python -m studio.engine.worker``: the public torchrun entry point of Slurm scripts and docs (kept stable).

The rank code lives in ``studio/engine/training/worker.py``; this module only runs it.
"""

if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising
    from studio.engine.training.worker import main

    exit_without_finalising(main)
