"""Preloaded first by the warm back end's PASSIVE server (``engine/jobs/backend.py``), before ``engine/jobs/warm.py``
imports torch: libgomp reads ``OMP_WAIT_POLICY`` once, when torch loads it, so every child this server
forks has OpenMP threads that sleep when idle instead of spinning."""

import os

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
