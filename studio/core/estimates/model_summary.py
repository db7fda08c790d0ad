"""A model summary: layers, output shapes, parameter counts and FLOPs per sample.

Shapes come from forward hooks on one sample; FLOPs from ``torch.utils.flop_counter.FlopCounterMode``
(a multiply-add counts as 2 FLOPs; only matrix multiplies and convolutions are counted, as there).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from studio.core.config import RunConfig
from studio.core.contracts.jobs import LayerSummary, ModelSummary, SummaryWithMemory
from studio.core.models.transformer import non_embedding_parameters


def summarize(model: nn.Module, input_shape: tuple[int, ...]) -> ModelSummary:
    """Describe ``model`` on one input of ``input_shape`` (without the batch dimension).

    Returns {"layers": [{"name", "type", "output_shape", "params", "trainable", "flops"}], "total_params",
    "trainable_params", "n_params_non_embedding",
    "flops_per_sample", "input_shape", "output_shape"}; layers are the leaf modules in call order.
    """
    shapes: dict[str, list[int]] = {}
    order: list[str] = []
    names = {module: name for name, module in model.named_modules()}

    def hook(module: nn.Module, _inputs: Any, output: Any) -> None:
        name = names[module]
        if name not in shapes:
            order.append(name)
        out = output[0] if isinstance(output, (tuple, list)) else output
        shapes[name] = list(out.shape[1:]) if isinstance(out, torch.Tensor) else []

    leaves = [m for m in model.modules() if not list(m.children()) and m is not model] or [model]
    handles = [m.register_forward_hook(hook) for m in leaves]
    was_training = model.training
    model.eval()  # one sample: batch norm must use its running statistics
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    counter = FlopCounterMode(display=False, depth=None)  # type: ignore[arg-type]  # None (every level) works; torch annotates int
    try:
        with torch.no_grad(), counter:
            output = model(torch.zeros(1, *input_shape, device=device))
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    flops_by_module = {key: sum(ops.values()) for key, ops in counter.get_flop_counts().items()}
    root = type(model).__name__
    layers: list[LayerSummary] = []
    for name in order:
        module = model.get_submodule(name)
        params = list(module.parameters(recurse=False))
        layers.append({
            "name": name, "type": type(module).__name__, "output_shape": shapes[name],
            "params": sum(p.numel() for p in params),
            "trainable": sum(p.numel() for p in params if p.requires_grad),
            "flops": int(flops_by_module.get(f"{root}.{name}", 0)),
        })
    return {
        "layers": layers,
        "total_params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "n_params_non_embedding": non_embedding_parameters(model),
        "flops_per_sample": int(counter.get_total_flops()),
        "input_shape": list(input_shape),
        "output_shape": list(output.shape[1:]),
    }


def summarize_config(cfg: RunConfig, memory: bool = False) -> SummaryWithMemory:
    """Build the config's model for its dataset's input shape and summarise it; with ``memory``, also where a
    training step's memory goes (core/estimates/memory.py: one real step, measured beside the formulas)."""
    from studio.core.models.catalog import MODELS, build_kwargs
    from studio.core.runs.lineage import load_run_data

    data = load_run_data(cfg)
    model = MODELS.build(cfg.model.name, **build_kwargs(cfg.model.name, cfg.model.params, data.input_shape,
                                                        data.num_classes, data.meta))
    result: SummaryWithMemory = {"model": cfg.model.name, "dataset": cfg.data.name,
                                 **summarize(model, data.input_shape)}
    if memory:
        from studio.core.estimates.memory import memory_of_config

        result["memory"] = memory_of_config(cfg, data)
    return result


def format_summary(summary: ModelSummary) -> str:
    """A plain-text table, one line per layer, totals at the bottom."""
    rows = [("layer", "type", "output shape", "params", "FLOPs")]
    for layer in summary["layers"]:
        rows.append((layer["name"], layer["type"], "×".join(map(str, layer["output_shape"])) or "-",
                     f"{layer['params']:,}", _si(layer["flops"]) if layer["flops"] else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) if i < 3 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    frozen = summary["total_params"] - summary["trainable_params"]
    lines += [
        "-" * len(lines[0]),
        f"input {'×'.join(map(str, summary['input_shape']))} → output {'×'.join(map(str, summary['output_shape']))}",
        f"parameters: {summary['total_params']:,} ({summary['trainable_params']:,} trainable"
        + (f", {frozen:,} frozen)" if frozen else ")"),
        f"non-embedding parameters (Kaplan's N): {summary.get('n_params_non_embedding', summary['total_params']):,}",
        f"FLOPs per sample (forward): {_si(summary['flops_per_sample'])} ({summary['flops_per_sample']:,})",
    ]
    return "\n".join(lines)


def _si(n: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f}{unit}"
    return str(int(n))
