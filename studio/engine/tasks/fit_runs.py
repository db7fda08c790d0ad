"""Scaling-law fits on runs in the store: a run's loss against steps or samples seen, or the final loss of
several runs against their parameter count. The maths is ``core/maths/scaling_fit.py``.

Samples seen = step × the run's global batch (``train.batch_size``; a run with batch growth is only
approximately that). Parameter counts come from each run's final checkpoint (the tensors that are
parameters, not batch-norm statistics), so only ``against="params"`` imports torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from studio.core.contracts.scaling import Fit, FitRequest, FitResult
from studio.core.errors import ConfigError, DataError
from studio.core.maths.scaling_fit import AGAINST, BY_SIZE, MIN_POINTS, PowerLawFit, fit_power_law
from studio.core.runs.store import RunStore
from studio.core.vocab import Metric

BUFFERS = ("running_mean", "running_var", "num_batches_tracked")


def parameter_count(run_dir: str | Path) -> int:
    """Parameters of the run's model, from its final checkpoint (tensors that share storage, as tied weights do
    when saved, count once)."""
    from studio.engine.replay import final_checkpoint, load_checkpoint

    state = load_checkpoint(final_checkpoint(run_dir).path)["model"]
    seen: set[tuple[int, int, tuple[int, ...]]] = set()  # a tied weight (gpt_lm's head = its embedding) counts once
    total = 0
    for key, t in state.items():
        where = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))
        if key.endswith(BUFFERS) or not t.is_floating_point() or where in seen:
            continue
        seen.add(where)
        total += t.numel()
    return total


def non_embedding_count(run_dir: str | Path) -> int:
    """Kaplan et al.'s N: the run's parameters outside its token/position embeddings (and an output layer tied
    to them). The model is rebuilt from the run's config (its builder knows which layers are embeddings) and its
    count checked against the final checkpoint's."""
    from studio.core.models.transformer import non_embedding_parameters
    from studio.engine.replay import RunData

    model = RunData(run_dir, device="cpu").model
    total, saved = sum(p.numel() for p in model.parameters()), parameter_count(run_dir)
    if total != saved:
        raise DataError(f"the model rebuilt from {run_dir}'s config ({total:,} parameters) is not the one in its "
                        f"final checkpoint ({saved:,}); was its config edited?")
    return non_embedding_parameters(model)


def points_of(store: RunStore, run_id: str, against: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """``(x, loss)`` of one run: its ``metric`` against steps or samples seen."""
    info = store.get(run_id)
    steps, values = store.metrics(run_id).get(metric, ([], []))
    if not steps:
        have = ", ".join(sorted(store.metrics(run_id))) or "none"
        raise DataError(f"run {run_id} has no {metric!r} values (it has: {have})")
    x = np.asarray(steps, dtype=float)
    if against == "samples":
        x = x * info.run_config.train.batch_size
    return x, np.asarray(values, dtype=float)


def fit_runs(run_ids: list[str], against: str = "steps", metric: str = Metric.VAL_LOSS, extrapolate: float = 4.0,
             store: RunStore | None = None, curve_points: int = 120) -> FitResult:
    """Fit L(x) = a·x^(−b) + c. Against steps or samples: one fit per run. Against params (or non_embedding,
    Kaplan's N): one fit over the runs, each contributing its last ``metric`` value at its parameter count.

    Returns ``{"against", "metric", "fits": [{"runs", "a", "b", "c", "r2", "stderr", "points", "predicted",
    "data": {"x", "y"}, "curve": {"x", "y", "low", "high"}}]}`` plus the first fit's ``a, b, c, r2,
    predicted`` at the top level.
    """
    if against not in AGAINST:
        raise ConfigError(f"unknown axis {against!r}; choose one of {', '.join(AGAINST)}")
    if extrapolate < 1:
        raise ConfigError("--extrapolate must be 1 or more (a multiple of the largest x)")
    if not run_ids:
        raise ConfigError("name at least one run")
    own = store is None
    store = store or RunStore()
    try:
        ids = [store.resolve(r).id for r in run_ids]
        groups: list[tuple[list[str], np.ndarray, np.ndarray]] = []
        if against in BY_SIZE:
            if len(ids) < MIN_POINTS:
                raise ConfigError(f"a fit against parameter count needs at least {MIN_POINTS} runs of different "
                                  f"sizes (have {len(ids)})")
            xs, ys = [], []
            for run_id in ids:
                _, values = points_of(store, run_id, "steps", metric)
                info = store.get(run_id)
                if against == "params":
                    xs.append(parameter_count(info.dir))
                else:  # the trainer records N in the run's summary; older runs rebuild their model to count it
                    recorded = info.summary.get("n_params_non_embedding")
                    xs.append(recorded if isinstance(recorded, int) else non_embedding_count(info.dir))
                ys.append(values[-1])
            groups.append((ids, np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)))
        else:
            for run_id in ids:
                groups.append(([run_id], *points_of(store, run_id, against, metric)))
    finally:
        if own:
            store.close()
    fits = [_describe(fit_power_law(x, y), runs, x, y, extrapolate, curve_points) for runs, x, y in groups]
    first = fits[0]
    return {"against": against, "metric": metric, "extrapolate": extrapolate, "a": first["a"], "b": first["b"],
            "c": first["c"], "r2": first["r2"], "predicted": first["predicted"], "fits": fits}


def _describe(fit: PowerLawFit, runs: list[str], x: np.ndarray, y: np.ndarray, extrapolate: float,
              curve_points: int) -> Fit:
    grid = np.geomspace(max(fit.x_min, 1e-12), fit.x_max * extrapolate, curve_points)
    low, high = fit.band(grid)
    order = np.argsort(x)
    return {"runs": runs, **fit.summary(extrapolate), "data": {"x": x[order].tolist(), "y": y[order].tolist()},
            "curve": {"x": grid.tolist(), "y": fit.predict(grid).tolist(), "low": low.tolist(), "high": high.tolist()}}


def run(request: FitRequest, progress: Any = None) -> FitResult:
    """The background task (``engine/tasks.FIT``): the fit on the store at ``request.home``."""
    if progress is not None:
        progress(0.1, "fitting")
    store = RunStore(request.home)
    try:
        return fit_runs(list(request.run_ids), request.against, request.metric, request.extrapolate, store=store)
    finally:
        store.close()
