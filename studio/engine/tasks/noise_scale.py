"""The gradient noise scale of any run with a model Studio can rebuild (a native run, or a model trained elsewhere
and attached): B_simple = tr(Σ)/|G|² from the squared gradient norms of whole batches and of their equal chunks
(core/demos/noise_scale.py's unbiased estimates, averaged over ``repeats`` batches before their ratio, as the paper
advises). The model is in eval mode: the noise measured is the data's, not dropout's."""

from __future__ import annotations

import time
from typing import Any

import torch

from studio.core.contracts.noise_scale import NoiseScaleRequest, NoiseScaleResult
from studio.core.demos.common import report
from studio.core.demos.noise_scale import unbiased_estimates
from studio.core.errors import DataError
from studio.engine.replay import RunData, resolve_checkpoint


def _sq_norm(model: torch.nn.Module, loss: torch.Tensor) -> float:
    params = [p for p in model.parameters() if p.requires_grad]
    grads = torch.autograd.grad(loss, params, allow_unused=True)
    return float(sum(g.pow(2).sum() for g in grads if g is not None))


def run(request: NoiseScaleRequest, progress: Any = None) -> NoiseScaleResult:
    request.validate()
    started = time.perf_counter()
    data = RunData(request.run_dir, request.device)
    ref = resolve_checkpoint(data.run_dir, request.checkpoint)
    data.load_weights(ref)
    x_all, y_all = data.eval_data("train", samples=0)
    n = len(x_all)
    small = request.small_batch
    big = request.batch_size or min(1024, n - n % small)
    if big <= small or big > n:
        raise DataError(f"the run's data has {n} samples: too few for batches of {big} split into chunks of "
                        f"{small}; give a smaller small batch or attach more data")
    loss_fn = data.loss_fns()["loss_fn"]
    gen = torch.Generator().manual_seed(request.seed)
    g2_sum = trace_sum = 0.0
    for r in range(request.repeats):
        idx = torch.randperm(n, generator=gen)[:big].to(x_all.device)
        x, y = x_all[idx], y_all[idx]
        sq_big = _sq_norm(data.model, loss_fn(data.model(x), y) / big)
        chunks = [_sq_norm(data.model, loss_fn(data.model(x[i:i + small]), y[i:i + small]) / small)
                  for i in range(0, big, small)]
        g2, trace = unbiased_estimates(sum(chunks) / len(chunks), sq_big, small, big)
        g2_sum, trace_sum = g2_sum + g2, trace_sum + trace
        report(progress, (r + 1) / request.repeats, f"batch {r + 1} of {request.repeats}")
    g2, trace = g2_sum / request.repeats, trace_sum / request.repeats
    return {"run_id": data.run_id, "checkpoint": ref.label, "b_simple": trace / g2 if g2 > 0 else float("inf"),
            "g2": g2, "trace": trace, "batch_size": big, "small_batch": small, "repeats": request.repeats,
            "seconds": round(time.perf_counter() - started, 3)}
