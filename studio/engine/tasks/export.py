"""Export a run for use outside Studio: its model as a TorchScript or torch.export file, its curves as
TensorBoard event files.

The exported model holds the preprocessing of training, so a plain ``torch`` program feeds it raw inputs:
images as pixel values 0–255 shaped ``(N, C, H, W)``, points as ``(N, D)`` floats; it returns class
probabilities ``(N, K)`` (a regression run: its raw outputs). The input's dtype: TorchScript takes any (it is cast
to float32); a torch.export ``.pt2`` takes only the training data's (uint8 for images, float32 for points), since
torch.export fixes the dtype of an input (no dtype can be dynamic) and torch refuses another with "Tensor dtype
mismatch! Expected: …"; the card's and the result's ``input_dtype`` say which. A JSON file beside it names the classes,
the input shape, the checkpoint and the run's config, and shows how to load it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.contracts import layout
from studio.core.contracts.export import (
    MODEL_FORMATS,
    ModelCard,
    ModelExportRequest,
    ModelExportResult,
    TensorBoardExportRequest,
    TensorBoardExportResult,
)
from studio.core.errors import ConfigError, DataError, OutputError
from studio.core.host.outfiles import check_target, reason, write_bytes
from studio.engine.replay import RunData, resolve_checkpoint

FORMATS = MODEL_FORMATS
SUFFIX = {"torchscript": ".pt", "export": ".pt2"}
LOADERS = {"torchscript": "torch.jit.load(PATH)", "export": "torch.export.load(PATH).module()"}


class Packaged(nn.Module):
    """The run's model behind its input preprocessing (scale, training mean/std, optional centering)."""

    mean: torch.Tensor  # buffers
    std: torch.Tensor

    def __init__(self, model: nn.Module, mean: torch.Tensor, std: torch.Tensor, scale: float, center: bool,
                 softmax: bool) -> None:
        super().__init__()
        self.model = model
        self.register_buffer("mean", mean.detach().clone().float())
        self.register_buffer("std", std.detach().clone().float())
        self.scale, self.center, self.softmax = float(scale), bool(center), bool(softmax)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x.float() * self.scale - self.mean) / self.std
        if self.center:
            x = x - x.mean(dim=tuple(range(1, x.dim())), keepdim=True)
        out = self.model(x)
        return torch.softmax(out, dim=1) if self.softmax else out


def package(run_dir: str | Path, checkpoint: str | None = None) -> tuple[Packaged, RunData, Any]:
    """The run's model with ``checkpoint`` (default final) and its preprocessing, on the CPU, in eval mode."""
    data = RunData(run_dir, "cpu")
    ref = resolve_checkpoint(run_dir, checkpoint)
    data.load_weights(ref)
    train = data.split("train")
    return Packaged(data.model, train.mean, train.std, train.scale, train.center, data.classification).eval(), data, ref


def export_model(run_dir: str | Path, out: str | Path, fmt: str = "export",
                 checkpoint: str | None = None, progress: Any = None) -> ModelExportResult:
    """Write the run's model to ``out`` (suffix added when missing) and ``<out>.json``; returns
    ``{"path", "config_path", "format", "bytes", "seconds", …}``."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown model format {fmt!r}; choose one of {', '.join(FORMATS)}")
    started = time.perf_counter()
    if progress:
        progress(0.0, "loading the run")
    net, data, ref = package(run_dir, checkpoint)
    if progress:
        progress(0.3, f"saving the model as {fmt}")
    path = Path(out)
    if path.suffix not in (".pt", ".pt2"):
        path = path.with_name(path.name + SUFFIX[fmt])
    check_target(path)
    example = data.split("train").x[:2].clone()
    buffer = io.BytesIO()  # serialised in memory first: a write error is then an OSError, never torch's abort
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # TorchScript is deprecated, still widely loaded
        try:
            if fmt == "torchscript":
                torch.jit.save(torch.jit.trace(net, example, check_trace=False), buffer)
            else:
                batch = torch.export.Dim("batch", min=1)
                program = torch.export.export(net, (example,), dynamic_shapes={"x": {0: batch}})
                torch.export.save(program, buffer)
        except (RuntimeError, TypeError, ValueError) as err:
            other = "export" if fmt == "torchscript" else "torchscript"
            raise DataError(f"this model cannot be saved as {fmt} ({str(err).splitlines()[0][:200]}); "
                            f"try --format {other}") from None
    config_path = path.with_name(path.name + ".json")
    check_target(config_path)
    dtype = str(example.dtype).removeprefix("torch.") if fmt == "export" else "any"
    meta: ModelCard = {
        "format": fmt, "load": LOADERS[fmt].replace("PATH", repr(path.name)), "run_id": data.run_id,
        "checkpoint": ref.label, "step": ref.step, "input_shape": list(data.input_shape),
        "input_dtype": dtype,
        "input": ("pixel values 0-255, shape (N, C, H, W)" if data.is_image else "raw feature values, shape (N, D)")
        + (f", dtype {dtype} only (torch.export fixes the input's dtype; convert with .to(torch.{dtype}))"
           if fmt == "export" else ", any dtype") + "; the model normalises them itself",
        "output": "class probabilities (N, K)" if data.classification else "raw outputs",
        "classes": data.classes, "config": data.config.to_dict(),
    }
    write_bytes(path, buffer.getbuffer())
    write_bytes(config_path, json.dumps(meta, indent=2).encode("utf-8"))
    return {"path": str(path), "config_path": str(config_path), "format": fmt, "bytes": path.stat().st_size,
            "checkpoint": ref.label, "input_dtype": dtype, "seconds": round(time.perf_counter() - started, 3)}


def export_tensorboard(store: Any, run_id: str, logdir: str | Path) -> TensorBoardExportResult:
    """Write every logged metric of ``run_id`` (with its step and wall time) and the run's config as
    TensorBoard event files under ``logdir/<run_id>``; ``tensorboard --logdir LOGDIR`` shows them."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise ConfigError("TensorBoard export needs the tensorboard package: pip install 'studio[tensorboard]' "
                          "(or pip install tensorboard)") from None
    info = store.get(run_id)
    rows = store.metric_rows_after(run_id, 0)  # (rowid, step, name, value, wall), in logging order
    folder = Path(logdir) / run_id
    created = not folder.exists()
    try:
        _writable_folder(folder)
        writer = SummaryWriter(log_dir=str(folder))
        try:
            for _, step, name, value, wall in rows:
                writer.add_scalar(name, value, global_step=step, walltime=wall)
            config_path = layout.config_path(info.dir)
            config = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
            if config:
                writer.add_text("config", "```toml\n" + config + "\n```", global_step=0)
            hists = write_histograms(writer, info.dir)
        finally:
            writer.close()
    except OSError as err:
        if created and folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)  # only the folder this export made
        raise OutputError(f"cannot write TensorBoard files to {folder}: {reason(err)}") from None
    return {"path": str(folder), "scalars": len(rows), "tags": sorted({r[2] for r in rows}), "histograms": hists}


def _writable_folder(folder: Path) -> None:
    """Make ``folder`` (a folder, not a file, FIFO or device) and prove it can be written; OSError if not."""
    for part in (*reversed(folder.parents), folder):
        if part.exists() and not part.is_dir():
            raise OutputError(f"cannot write TensorBoard files to {folder}: {part} is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".studio-probe-{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()


def write_histograms(writer: Any, run_dir: str | Path) -> int:
    """The run's weight and gradient histograms (``core/runs/histograms.py``) as TensorBoard histograms, tags
    ``weights/<tensor>`` and ``gradients/<tensor>``; how many were written."""
    from studio.core.runs import histograms

    records = histograms.read(run_dir)
    for r in records:
        bins = len(r["counts"])
        # a constant tensor: TensorBoard needs increasing bucket limits
        edges = (np.linspace(r["min"], r["max"], bins + 1) if r["max"] > r["min"]
                 else r["min"] + np.arange(bins + 1) * 1e-12)
        tag = ("weights/" if r["kind"] == "weight" else "gradients/") + r["name"]
        writer.add_histogram_raw(tag, min=r["min"], max=r["max"], num=r["num"], sum=r["sum"],
                                 sum_squares=r["sum_sq"], bucket_limits=edges[1:].tolist(),
                                 bucket_counts=r["counts"], global_step=r["step"])
    return len(records)


def run(request: TensorBoardExportRequest | ModelExportRequest,
        progress: Any = None) -> TensorBoardExportResult | ModelExportResult:
    """The background task (``engine/tasks.EXPORT_TENSORBOARD``, ``EXPORT_MODEL``)."""
    if isinstance(request, ModelExportRequest):
        return export_model(request.run_dir, request.out, request.fmt, request.checkpoint, progress=progress)
    from studio.core.runs.store import RunStore

    store = RunStore(request.home)
    try:
        return export_tensorboard(store, request.run_id, request.logdir)
    finally:
        store.close()
