"""Every layer's output for one classified input (DIGITS' layer visualisation): forward hooks on the model's
leaf modules (not Dropout, Flatten or Identity, which show nothing new) record each output once; feature maps
are average-pooled to at most ``MAP_SIZE`` square and the first ``max_maps`` kept, vectors cut to
``MAX_UNITS`` values, so the result stays small whatever the model."""

from __future__ import annotations

import time
from typing import Any

import torch
from torch import nn

from studio.core.contracts.activations import (
    MAP_SIZE,
    MAX_UNITS,
    ActivationsRequest,
    ActivationsResult,
    LayerActivation,
)
from studio.core.errors import DataError
from studio.engine.tasks.evaluation import load_run
from studio.engine.tasks.predict import load_inputs

SKIPPED = (nn.Dropout, nn.Dropout2d, nn.Flatten, nn.Identity)


def describe(name: str, module: nn.Module | None, out: torch.Tensor, max_maps: int) -> LayerActivation:
    """One output (batch of one) as a small array: maps (C, H, W) or a vector (D,)."""
    x = out.detach().float()[0]
    shape = list(x.shape)
    low, high = float(x.min()), float(x.max())
    layer = type(module).__name__ if module is not None else "input"
    if x.dim() == 3:
        maps = x[:max_maps]
        if max(maps.shape[1:]) > MAP_SIZE:
            maps = nn.functional.adaptive_avg_pool2d(maps[None], (min(maps.shape[1], MAP_SIZE),
                                                                  min(maps.shape[2], MAP_SIZE)))[0]
        return {"name": name, "layer": layer, "shape": shape, "kind": "maps", "values": maps.cpu().numpy(),
                "low": low, "high": high}
    flat = x.flatten()[:MAX_UNITS]
    return {"name": name, "layer": layer, "shape": shape, "kind": "vector", "values": flat.cpu().numpy(),
            "low": low, "high": high}


@torch.inference_mode()
def layer_outputs(model: nn.Module, x: torch.Tensor, max_maps: int) -> tuple[torch.Tensor, list[LayerActivation]]:
    """(the model's output, every hooked layer's activation in the order they ran) for the one input ``x``."""
    found: list[LayerActivation] = []
    seen: set[str] = set()

    def hook(name: str, module: nn.Module) -> Any:
        def record(_m: nn.Module, _inputs: Any, output: Any) -> None:
            if name not in seen and isinstance(output, torch.Tensor) and output.dim() in (2, 4):
                seen.add(name)  # a module used twice (a shared activation) shows its first output
                found.append(describe(name, module, output, max_maps))
        return record

    handles = [m.register_forward_hook(hook(n, m)) for n, m in model.named_modules()
               if n and not list(m.children()) and not isinstance(m, SKIPPED)]
    try:
        out = model(x)
    finally:
        for h in handles:
            h.remove()
    return out, found


def activations(request: ActivationsRequest, progress: Any = None) -> ActivationsResult:
    """The layer activations of ``request.path`` under the run's model, with its predicted class."""
    request.validate()
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    data, ref = load_run(request.run_dir, request.checkpoint, request.device)
    inputs = load_inputs([request.path], data.input_shape, data.is_image)
    if len(inputs.names) != 1:
        raise DataError(f"give one input to show its layer activations; {request.path} holds {len(inputs.names)}")
    x = data.split("train").normalise(inputs.x[:1]).to(data.device)
    if progress:
        progress(0.5, "running the layers")
    out, found = layer_outputs(data.model, x, request.max_maps)
    probs = torch.softmax(out.float(), dim=1)[0]
    best = int(probs.argmax())
    return {"run_id": data.run_id, "checkpoint": ref.label, "input": inputs.names[0],
            "predicted": data.classes[best], "probability": float(probs[best]),
            "layers": [describe("input", None, x, request.max_maps), *found],
            "seconds": round(time.perf_counter() - started, 3)}


def run(request: ActivationsRequest, progress: Any = None) -> ActivationsResult:
    """The background task (``engine/tasks.ACTIVATIONS``)."""
    return activations(request, progress)
