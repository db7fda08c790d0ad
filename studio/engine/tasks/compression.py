"""Compress a trained run: magnitude pruning (``torch.nn.utils.prune``), optional short fine-tuning, and
post-training int8 quantisation (``torch.ao.quantization``): dynamic for Linear/LSTM/GRU layers, static with
calibration for models with convolutions.

The run's model, checkpoint and data come from ``engine/replay.py`` (the trainer's own builders);
accuracy is measured on the run's test split exactly as ``studio eval`` does. The result is saved as a new
entry under ``run_dir/compressed/<id>/``: ``model.pt`` (the compressed state dict — a pruned model's is an
ordinary checkpoint ``{"model", "config", …}`` that loads with ``weights_only=True``; a quantised one holds
packed int8 weights and loads with ``weights_only=False``) and ``summary.json`` with the before/after table.

``torch.ao.quantization`` is deprecated in favour of torchao in recent torch releases but works on the torch
here (2.14); torchao is not used because it would force a newer torch. Its warnings are silenced.

Sizes are ``torch.save`` files of the state dict (``bytes``) and the same file gzip-compressed
(``gzip_bytes``): unstructured pruning keeps the tensors dense, so zeros only pay off once compressed.
Latency is the median CPU time of a forward pass of one example and of a batch of 256, one thread.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import os
import statistics
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn

from studio.core.contracts import layout
from studio.core.contracts.compression import (
    QUANTIZE,
    SWEEP_SPARSITIES,
    CompressRequest,
    CompressResult,
    Latency,
    Measurement,
    SweepPoint,
    SweepRequest,
    SweepResult,
)
from studio.core.errors import ConfigError
from studio.core.maths import pruning
from studio.core.maths.pruning import check_amount, make_permanent, prune_model, sparsity
from studio.engine.replay import RunData
from studio.engine.tasks.evaluation import class_probabilities, load_run

Report = Callable[[float, str], None]
CALIBRATION_SAMPLES = 1024


@contextmanager
def quiet_quantization() -> Iterator[None]:
    """torch.ao.quantization warns that it is deprecated (for torchao) and about observer arguments."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module="torch.ao")
        warnings.filterwarnings("ignore", category=FutureWarning)
        yield


def fine_tune(data: RunData, model: nn.Module, steps: int, progress: Report | None = None) -> None:
    """``steps`` of Adam at a tenth of the run's learning rate on its training split (the pruning masks
    stay applied, so pruned weights stay zero)."""
    if steps <= 0:
        return
    cfg = data.config
    train = data.split("train")
    lr = float(cfg.optimizer.params.get("lr", 1e-3)) * 0.1
    pruning.fine_tune(model, train.x, train.y.to(data.device), steps, lr, cfg.train.batch_size, cfg.train.seed,
                      prepare=lambda xb: train.normalise(xb.to(data.device)), progress=progress)


def has_conv(model: nn.Module) -> bool:
    return any(isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)) for m in model.modules())


def quantize_model(data: RunData, model: nn.Module, mode: str) -> tuple[nn.Module, str]:
    """An int8 copy of ``model`` (CPU) and the method used: ``dynamic`` (weights int8, activations quantised
    on the fly; Linear and recurrent layers) or ``static`` (FX graph mode, activations calibrated on
    ``CALIBRATION_SAMPLES`` training examples; every supported layer). ``int8`` picks static for models
    with convolutions, dynamic otherwise."""
    if mode not in QUANTIZE[1:]:
        raise ConfigError(f"unknown quantisation {mode!r}; choose one of {', '.join(QUANTIZE)}")
    method = {"int8-dynamic": "dynamic", "int8-static": "static"}.get(mode) or (
        "static" if has_conv(model) else "dynamic")
    model = copy.deepcopy(model).cpu().eval()
    with quiet_quantization():
        from torch.ao import quantization as tq

        if method == "dynamic":
            return tq.quantize_dynamic(model, {nn.Linear, nn.LSTM, nn.GRU}, dtype=torch.qint8), method
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

        engine = "x86" if "x86" in torch.backends.quantized.supported_engines else \
            torch.backends.quantized.supported_engines[-1]
        torch.backends.quantized.engine = engine
        train = data.split("train")
        gen = torch.Generator().manual_seed(0)
        idx = torch.randperm(len(train), generator=gen)[:CALIBRATION_SAMPLES]
        calib = train.normalise(train.x[idx].cpu())
        try:
            prepared = prepare_fx(model, tq.get_default_qconfig_mapping(engine), (calib[:2],))
        except Exception as err:  # noqa: BLE001 - a model FX cannot trace: say so, suggest dynamic
            raise ConfigError(f"static quantisation cannot trace this model ({type(err).__name__}: "
                              f"{str(err)[:200]}); use --quantize int8-dynamic") from None
        with torch.inference_mode():
            for start in range(0, len(calib), 256):
                prepared(calib[start:start + 256])
        return convert_fx(prepared), method


def saved_bytes(model: nn.Module) -> tuple[int, int]:
    """Size of ``torch.save(state_dict)`` and of the same bytes gzip-compressed."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    raw = buf.getvalue()
    return len(raw), len(gzip.compress(raw, compresslevel=6))


def latency_ms(model: nn.Module, example: torch.Tensor, repeats: int = 30) -> Latency:
    """Median CPU milliseconds of a forward pass of one example and of a batch of 256, on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    medians: list[float] = []
    try:
        with torch.inference_mode():
            for x, n in ((example[:1], repeats), (example[:256], max(3, repeats // 6))):
                model(x)  # warm-up
                times = []
                for _ in range(n):
                    t0 = time.perf_counter()
                    model(x)
                    times.append((time.perf_counter() - t0) * 1000)
                medians.append(statistics.median(times))
    finally:
        torch.set_num_threads(threads)
    return {"latency_ms": medians[0], "batch256_ms": medians[1]}


def test_accuracy(data: RunData, model: nn.Module) -> float:
    part = data.split("test")
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    probs = class_probabilities(model, part.x, part.normalise, device)
    return float((probs.argmax(1) == part.y.cpu().numpy()).mean())


def measure(data: RunData, model: nn.Module, params_of: nn.Module | None = None) -> Measurement:
    """Test accuracy, size on disk, parameters/sparsity and latency of ``model`` (parameters counted on
    ``params_of``: a quantised model hides its weights in packed form)."""
    part = data.split("test")
    example = part.normalise(part.x[:256].cpu())
    size, zipped = saved_bytes(model)
    measured: Measurement = {"test_acc": test_accuracy(data, model), "bytes": size, "gzip_bytes": zipped,
            **sparsity(params_of if params_of is not None else model), **latency_ms(model, example)}
    return measured


def _entry_id(prune_amount: float, structured: bool, quantize: str, fine_tune_steps: int) -> str:
    parts = []
    if prune_amount > 0:
        parts.append(f"prune{round(prune_amount * 100)}" + ("s" if structured else ""))
        if fine_tune_steps:
            parts.append(f"ft{fine_tune_steps}")
    if quantize != "none":
        parts.append(quantize)
    return time.strftime("%Y%m%d-%H%M%S-") + ("-".join(parts) or "copy")


def compress_run(run_dir: str | Path, prune_amount: float = 0.0, structured: bool = False, quantize: str = "none",
                 fine_tune_steps: int = 0, checkpoint: str | None = None, save: bool = True,
                 progress: Report | None = None) -> CompressResult:
    """Prune and/or quantise the run's model; returns (and saves under ``run_dir/compressed/<id>/``)
    ``{"id", "run_id", "before", "after", "method", …}`` where before/after each hold ``test_acc, bytes,
    gzip_bytes, params, nonzero_params, sparsity, latency_ms, batch256_ms``."""
    if quantize not in QUANTIZE:
        raise ConfigError(f"unknown quantisation {quantize!r}; choose one of {', '.join(QUANTIZE)}")
    if fine_tune_steps < 0:
        raise ConfigError("--fine-tune must be 0 or more steps")
    check_amount(prune_amount)
    started = time.perf_counter()
    report = progress or (lambda _f, _t: None)
    report(0.0, "loading the run")
    data, ref = load_run(run_dir, checkpoint, "cpu")
    model = data.model.eval()
    report(0.1, "measuring the original")
    before = measure(data, model)
    compressed = copy.deepcopy(model)
    if prune_amount > 0:
        report(0.3, f"pruning {prune_amount:.0%}")
        prune_model(compressed, prune_amount, structured)
        fine_tune(data, compressed, fine_tune_steps,
                  (lambda f, t: report(0.3 + 0.3 * f, t)) if progress else None)
        make_permanent(compressed)
    float_model, method = compressed, None
    if quantize != "none":
        report(0.6, "quantising to int8")
        compressed, method = quantize_model(data, float_model, quantize)
    report(0.7, "measuring the compressed model")
    after = measure(data, compressed, params_of=float_model)  # a quantised model packs its weights
    entry: CompressResult = {
        "id": _entry_id(prune_amount, structured, quantize, fine_tune_steps), "run_id": data.run_id,
        "checkpoint": ref.label, "prune": prune_amount, "structured": structured,
        "fine_tune_steps": fine_tune_steps, "quantize": quantize, "method": method,
        "model": data.config.model.name, "before": before, "after": after,
        "size_ratio": before["bytes"] / max(after["bytes"], 1),
        "accuracy_change": after["test_acc"] - before["test_acc"],
        "seconds": round(time.perf_counter() - started, 3)}
    if save:
        entry["path"] = str(_save_entry(run_dir, entry, compressed, data, method))
    report(1.0, "done")
    return entry


def _save_entry(run_dir: str | Path, entry: CompressResult, model: nn.Module, data: RunData,
                method: str | None) -> Path:
    folder = layout.compressed_entry_dir(run_dir, entry["id"])
    folder.mkdir(parents=True, exist_ok=True)
    state = model.state_dict() if method else {"model": model.state_dict(), "config": data.config.to_toml(),
                                               "step": -1, "epoch": -1}
    model_path, summary_path = folder / layout.COMPRESSED_MODEL, folder / layout.COMPRESSED_SUMMARY
    tmp = model_path.with_name(model_path.name + ".part")
    torch.save(state, tmp)
    os.replace(tmp, model_path)
    tmp = summary_path.with_name(summary_path.name + ".part")
    tmp.write_text(json.dumps(entry, indent=1), encoding="utf-8")
    os.replace(tmp, summary_path)
    return folder


def sparsity_sweep(run_dir: str | Path, sparsities: tuple[float, ...] = SWEEP_SPARSITIES, structured: bool = False,
                   fine_tune_steps: int = 0, checkpoint: str | None = None, save: bool = True,
                   progress: Report | None = None) -> SweepResult:
    """Test accuracy after pruning to each sparsity (each from the trained weights); saved as
    ``run_dir/compressed/sweep.json``. Returns ``{"run_id", "structured", "points": [{"sparsity", "target",
    "test_acc"}], …}``."""
    for amount in sparsities:
        check_amount(amount)
    started = time.perf_counter()
    report = progress or (lambda _f, _t: None)
    report(0.0, "loading the run")
    data, ref = load_run(run_dir, checkpoint, "cpu")
    points: list[SweepPoint] = []
    for i, amount in enumerate(sparsities):
        report(i / len(sparsities), f"pruning {amount:.0%}")
        model = copy.deepcopy(data.model)
        prune_model(model, amount, structured)
        fine_tune(data, model, fine_tune_steps)
        make_permanent(model)
        points.append({"target": amount, "sparsity": sparsity(model)["sparsity"],
                       "test_acc": test_accuracy(data, model.eval())})
    out: SweepResult = {"run_id": data.run_id, "checkpoint": ref.label, "structured": structured,
                        "fine_tune_steps": fine_tune_steps, "model": data.config.model.name, "points": points,
                        "seconds": round(time.perf_counter() - started, 3)}
    if save:
        path = layout.sweep_path(run_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        tmp.write_text(json.dumps(out, indent=1), encoding="utf-8")
        os.replace(tmp, path)
        out["path"] = str(path)
    report(1.0, "done")
    return out


def run(request: CompressRequest | SweepRequest, progress: Report | None = None) -> CompressResult | SweepResult:
    """The background task (``engine/tasks.COMPRESS``, ``SWEEP``)."""
    if isinstance(request, SweepRequest):
        return sparsity_sweep(request.run_dir, tuple(request.sparsities), request.structured,
                              request.fine_tune_steps, request.checkpoint, request.save, progress=progress)
    return compress_run(request.run_dir, request.prune_amount, request.structured, request.quantize,
                        request.fine_tune_steps, request.checkpoint, request.save, progress=progress)
