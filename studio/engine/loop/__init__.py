"""The training loop (``trainer.py``) and what a step needs: data on the device, batches, mixed precision, the
ranks' collectives, sinks, checkpoints and restoring one. Features are callbacks (``engine/callbacks/``, a floor
above); the run is assembled and its processes started by ``engine/training/`` (above those)."""
