"""Loss landscapes and curvature (no Qt).

- ``directions``: random Gaussian directions, filter-normalised (Li et al. 2018).
- ``surface``: 1-D interpolation and 2-D grids; a fast evaluator (torch.func.functional_call + vmap over
  stacked parameter sets) and a plain sequential reference.
- ``trajectory``: PCA of checkpoint differences to the final weights, the projected path.
- ``curvature``: top Hessian eigenvalues (Lanczos / power iteration on Hessian-vector products),
  Hutchinson's trace, Keskar's ε-sharpness.
- ``io``: results as .npz with metadata under ``run_dir/landscapes/`` (numpy only: the GUI reads them).

Rebuilding a run's model and data from its directory replays the worker's set-up, so it lives in the
engine: ``studio/engine/replay.py``; the jobs the CLI, the background process and the GUI run are
``studio/engine/tasks/landscape.py``.
"""
