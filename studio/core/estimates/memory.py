"""Where a training step's memory goes: parameters, gradients, optimizer state and the activations of one
micro-batch, each computed from the model's shapes and measured on one real step, side by side.

Computed: parameters and gradients are numel × bytes per element; the optimizer state is its multiple of the
parameters for the configured optimizer (SGD momentum 1×, Adam 2×, 1.5× or 1× with Adam's moments in bfloat16:
core/optim/low_precision.py); activations are the leaf layers' outputs for one micro-batch at the autocast
element size (2 bytes for bf16/fp16, 4 for fp32) — what a plain layer-by-layer network keeps for backward. Layers
that keep their own intermediates (an LSTM's gates at every time step, attention inside one module) keep more
than their output: there the measured figure is the one to read.

Measured, on one forward + backward + optimizer step of a real micro-batch:
- parameters, gradients and optimizer state: the bytes of the tensors themselves (exact);
- activations: the bytes autograd saves for backward (``torch.autograd.graph.saved_tensors_hooks``, each storage
  counted once; exact for what autograd keeps, whatever the device);
- the step's peak: on CUDA ``torch.cuda.max_memory_allocated`` over the step, less what was allocated before (exact
  for torch's caching allocator); on the CPU torch has no allocator statistics and ``tracemalloc`` does not see
  its allocations, so the process's resident memory (/proc/self/statm) is sampled every millisecond during the
  step and its growth reported: coarse (freed pages the C allocator reuses are not counted again; its slack is).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import torch
from torch import nn

from studio.core.config import RunConfig
from studio.core.contracts.jobs import MemoryRow, MemoryView
from studio.core.estimates.footprint import optimizer_factor
from studio.core.numbers.byte_size import byte_size

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def activation_bytes_computed(model: nn.Module, x: torch.Tensor, precision: str) -> int:
    """Σ over the leaf layers of their output's elements for this micro-batch × the autocast element size."""
    size = 4 if precision == "fp32" else 2
    total = 0

    def hook(_module: nn.Module, _inputs: Any, output: Any) -> None:
        nonlocal total
        out = output[0] if isinstance(output, (tuple, list)) else output
        if isinstance(out, torch.Tensor) and out.is_floating_point():
            total += out.numel() * size

    leaves = [m for m in model.modules() if not list(m.children())] or [model]
    handles = [m.register_forward_hook(hook) for m in leaves]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    return total


def _state_bytes(optimizer: torch.optim.Optimizer) -> int:
    return sum(v.nbytes for state in optimizer.state.values() for v in state.values()
               if isinstance(v, torch.Tensor) and v.dim() > 0)


def _rss() -> int | None:
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            import os

            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class _RssPeak:
    """The highest resident memory seen while inside the block (sampled every millisecond)."""

    def __enter__(self) -> _RssPeak:
        self.start = _rss()
        self.peak = self.start or 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss() or 0)
            time.sleep(0.001)

    def __exit__(self, *_exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss() or 0)

    @property
    def growth(self) -> int | None:
        return None if self.start is None else self.peak - self.start


def measure_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
                 loss_fn: Any, precision: str, closure: bool = False) -> dict[str, int | None]:
    """One forward + backward + optimizer step: the bytes of gradients, optimizer state, saved activations and
    the step's peak (CUDA allocator or CPU resident memory, see the module's docstring)."""
    device = x.device
    saved: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        try:
            saved[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        except (RuntimeError, NotImplementedError):  # a tensor without storage (rare): its own bytes
            saved[id(t)] = t.nbytes
        return t

    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    with _RssPeak() as rss:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            with torch.autocast(device.type, dtype=DTYPES[precision], enabled=precision != "fp32"):
                loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step((lambda: loss_fn(model(x), y)) if closure else None)
        if cuda:
            torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before if cuda else rss.growth
    return {
        "gradients": sum(p.grad.nbytes for p in model.parameters() if p.grad is not None),
        "optimizer": _state_bytes(optimizer),
        "activations": sum(b for ptr, b in saved.items() if ptr not in weights),  # the weights are not activations
        "peak": peak,
    }


def memory_of_config(cfg: RunConfig, data: Any = None) -> MemoryView:
    """The memory view of ``cfg``'s training: its model, optimizer, per-process micro-batch, precision and
    device (``hardware.device``; the CPU when CUDA is not there), one real step measured beside the formulas."""
    from studio.core.maths.objectives import task_for
    from studio.core.models.catalog import MODELS, build_kwargs
    from studio.core.optim import OPTIMIZERS
    from studio.core.runs.lineage import load_run_data

    torch.manual_seed(cfg.train.seed)
    data = data if data is not None else load_run_data(cfg)
    device = torch.device("cuda" if cfg.hardware.device == "cuda" and torch.cuda.is_available() else "cpu")
    precision = cfg.train.precision if device.type == "cuda" or cfg.train.precision != "fp16" else "fp32"
    model = MODELS.build(cfg.model.name, **build_kwargs(cfg.model.name, cfg.model.params, data.input_shape,
                                                        data.num_classes, data.meta)).to(device)
    model.train()
    micro = max(1, min(cfg.train.batch_size // max(1, cfg.hardware.processes), len(data.y_train)))
    x, y = data.x_train[:micro].to(device), data.y_train[:micro].to(device)
    if x.dtype != torch.int64:  # pixels/features as the loop feeds them (token ids stay as they are)
        x = x.float()
    opt_params = cfg.optimizer.params
    groups = model.optimizer_groups(opt_params["lr"]) if hasattr(model, "optimizer_groups") else model.parameters()
    optimizer = OPTIMIZERS.build(cfg.optimizer.name, params=groups, **opt_params)
    params = [p for p in model.parameters()]
    trainable = [p for p in params if p.requires_grad]
    param_bytes = sum(p.numel() * p.element_size() for p in params)
    grad_bytes = sum(p.numel() * p.element_size() for p in trainable)
    factor = optimizer_factor(cfg.optimizer.name, opt_params)
    state_computed = None if factor is None else int(factor * grad_bytes)
    act_computed = activation_bytes_computed(model, x, precision)
    task = task_for(data.meta, cfg.train.label_smoothing)
    closure = "closure" in OPTIMIZERS.get(cfg.optimizer.name).tags  # Newton's step re-evaluates the loss
    measured = measure_step(model, optimizer, x, y, task.loss, precision, closure)
    peak_how = ("torch.cuda.max_memory_allocated over the step, less the memory allocated before it (exact)"
                if device.type == "cuda" else
                "growth of the process's resident memory during the step, sampled every ms (coarse: torch has "
                "no CPU allocator statistics and tracemalloc does not see its allocations)")
    total = None if state_computed is None else param_bytes + grad_bytes + state_computed + act_computed
    rows: list[MemoryRow] = [
        {"item": "parameters", "computed": param_bytes, "measured": sum(p.nbytes for p in params),
         "how": "bytes of the weight tensors (exact)"},
        {"item": "gradients", "computed": grad_bytes, "measured": measured["gradients"],
         "how": "bytes of .grad after backward (exact)"},
        {"item": f"optimizer state ({cfg.optimizer.name})", "computed": state_computed,
         "measured": measured["optimizer"], "how": "bytes of the optimizer's state tensors after one step (exact)"},
        {"item": f"activations per micro-batch of {micro}", "computed": act_computed,
         "measured": measured["activations"],
         "how": "bytes autograd saves for backward, each storage once (saved_tensors_hooks; exact; with autocast "
                "it includes the low-precision copies of the weights)"},
        {"item": "peak of one step (new memory)", "computed": None if total is None else total - param_bytes,
         "measured": measured["peak"], "how": peak_how},
    ]
    return {"rows": rows, "micro_batch": micro, "accumulate_steps": cfg.train.accumulate_steps,
            "processes": cfg.hardware.processes, "precision": precision, "optimizer": cfg.optimizer.name,
            "device": device.type}


def format_memory(view: MemoryView) -> str:
    """A plain-text table of the memory view (``studio model summary --memory``)."""
    lines = [f"memory: {view['precision']}, micro-batch {view['micro_batch']} × accumulate "
             f"{view['accumulate_steps']} × {view['processes']} processes, {view['optimizer']} on {view['device']}",
             f"{'':40}{'computed':>14}{'measured':>14}"]
    lines += [f"{r['item']:40}{byte_size(r['computed']):>14}{byte_size(r['measured']):>14}  {r['how']}"
              for r in view["rows"]]
    return "\n".join(lines)
