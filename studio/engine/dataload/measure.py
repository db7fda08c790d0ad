"""One input-pipeline sweep in its own process: ``python -m studio.engine.dataload.measure PLAN.json``.

The plan (written by ``engine/dataload/sweep.py``) is the request and its files. This process decodes every
image once (the device-resident path's preload, which also finds files that cannot be decoded), then trains the
request's model for the same steps under each configuration: a ``DataLoader`` over :class:`ImageFiles` for each
worker count (pin_memory and persistent workers on and off as asked), then Studio's device-resident path
(``engine/training/device_data.DeviceData``: one uint8 tensor on the device, a batch is an index gather). A step
is timed in two parts: waiting (``next(iterator)`` and the copy to the device) and compute (forward, backward,
optimizer step), synchronising CUDA between them. JSON lines on stdout: ``progress``, ``row``, then ``result`` or
``error``.

It is its own process (and process-group leader) because DataLoader workers are child processes, which a
daemonic background job may not have; it kills its whole group (itself and its workers) when its parent goes
away, so no worker outlives a cancelled or killed sweep.
"""

from __future__ import annotations

import functools
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from studio.core.contracts.dataload import DataloadRequest
from studio.core.datasets.importers.images import Geometry, SkipImage, load_image
from studio.core.datasets.importers.result import Skips
from studio.core.errors import ConfigError, StudioError


def emit(kind: str, **fields: Any) -> None:
    print(json.dumps({"type": kind, **fields}), flush=True)


def watch_parent(every_s: float = 0.2) -> None:
    """Kill this process's group (itself and its DataLoader workers) as soon as its parent is gone."""
    parent = os.getppid()

    def loop() -> None:
        while True:
            if os.getppid() != parent:
                if hasattr(os, "killpg") and os.getpgrp() == os.getpid():  # only a group this process leads
                    os.killpg(os.getpgrp(), signal.SIGKILL)
                os._exit(1)
            time.sleep(every_s)

    threading.Thread(target=loop, name="parent-watch", daemon=True).start()


class Reporter:
    """``progress`` lines, at most every ``every_s`` seconds."""

    def __init__(self, every_s: float = 0.25) -> None:
        self.every_s, self.last = every_s, 0.0

    def __call__(self, fraction: float, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last >= self.every_s:
            self.last = now
            emit("progress", fraction=round(min(max(fraction, 0.0), 1.0), 4), text=text)


def preload(paths: list[str], labels: list[int], geo: Geometry, root: str,
            report: Reporter) -> tuple[np.ndarray, list[int], Skips, float]:
    """Decode every file once: (x uint8 (M, C, H, W), indices of the M files that decode, skips, seconds)."""
    x = np.empty((len(paths), geo.channels, geo.height, geo.width), np.uint8)
    kept: list[int] = []
    skips = Skips()
    started = time.perf_counter()
    for i, path in enumerate(paths):
        try:
            x[len(kept)] = load_image(path, geo)
            kept.append(i)
        except SkipImage as err:
            skips.add(os.path.relpath(path, root), str(err))
        report(0.15 * (i + 1) / len(paths), f"decoding every image once (the device-resident path) {i + 1:,}"
                                            f"/{len(paths):,}")
    seconds = time.perf_counter() - started
    if not kept:
        raise ConfigError(f"none of the {len(paths):,} images in {root} could be decoded"
                          + (f" (e.g. {skips.examples[0]})" if skips.examples else ""))
    return x[:len(kept)], kept, skips, seconds


def code_source(req: DataloadRequest, report: Reporter) -> tuple[Any, Any, Any, list[str], str, float]:
    """A dataset that is code (``req.dataset`` with ``req.data_params``): (its training split, at most
    ``req.limit`` items read once for the device-resident path, their labels, the classes, its name, seconds)."""
    import torch

    from studio.core.config.data_loading import load_dataset
    from studio.core.contracts.registry import Choice
    from studio.core.datasets.code_data import as_pair

    data: Any = load_dataset(Choice(req.dataset, dict(req.data_params or {})), seed=req.seed)  # a CodeData
    train = data.train
    n = min(len(train), req.limit)
    started = time.perf_counter()
    xs, ys = [], []
    for i in range(n):
        x, y = as_pair(train[i], data.owner)
        xs.append(x)
        ys.append(int(y))
        report(0.15 * (i + 1) / n, f"reading every item once (the device-resident path) {i + 1:,}/{n:,}")
    seconds = time.perf_counter() - started
    return train, torch.stack(xs), torch.as_tensor(ys, dtype=torch.int64), list(data.classes), \
        f"{req.dataset} ({data.owner})", seconds


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the DataLoader's joined workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def label_of(workers: int, pin: bool, persistent: bool) -> str:
    text = f"{workers} worker{'' if workers == 1 else 's'}"
    return text + (", pinned" if pin else "") + (", persistent" if persistent else "")


def main(plan_path: str) -> int:
    watch_parent()
    plan = json.loads(Path(plan_path).read_text(encoding="utf-8"))
    try:
        emit("result", result=sweep(plan))
    except StudioError as err:
        emit("error", message=str(err), code=err.exit_code)
        return err.exit_code
    except MemoryError:
        emit("error", message="the machine ran out of memory during the input-pipeline sweep; use fewer images "
                              "(--limit) or a smaller size", code=3)
        return 3
    except Exception as err:  # noqa: BLE001 - a worker that died, a file that changed: one sentence for the caller
        emit("error", message=describe_failure(err, LIVE.get("iterator"), LIVE.get("label", "")), code=3)
        return 3
    return 0


LIVE: dict[str, Any] = {}  # the DataLoader iterator being timed and its configuration: a dead worker is named from it


def dead_worker(iterator: Any, wait_s: float = 1.0) -> str:
    """"DataLoader worker 1 (pid 4242) was killed by SIGKILL" for the first of ``iterator``'s workers that died
    (waiting up to ``wait_s`` for the death to be reaped); "" when none did."""
    workers = list(getattr(iterator, "_workers", None) or [])
    deadline = time.monotonic() + wait_s
    while workers:
        for i, worker in enumerate(workers):
            code = worker.exitcode
            if code not in (None, 0):
                try:
                    how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
                except ValueError:
                    how = f"was killed by signal {-code}"
                return f"DataLoader worker {i} (pid {worker.pid}) {how}"
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return ""


def describe_failure(err: BaseException, iterator: Any = None, label: str = "") -> str:
    """One sentence for a measurement that failed: a worker that died is named (its death reaches the measurement
    as torch's "worker … exited unexpectedly", or as a pipe's "Connection reset by peer" that names nobody)."""
    first = (str(err).strip().splitlines() or [type(err).__name__])[0]
    dead = dead_worker(iterator) if iterator is not None else ""
    if dead and "DataLoader worker" not in first:
        where = f" while measuring {label}" if label else ""
        return f"the input-pipeline measurement failed: {dead}{where} ({first})"
    return f"the input-pipeline measurement failed: {first}"


def sweep(plan: dict[str, Any]) -> dict[str, Any]:
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, RandomSampler

    from studio.core.host.gpu_stats import Sampler, open_nvml
    from studio.core.maths.normalise import stats
    from studio.core.models import MODELS
    from studio.engine.dataload.files_dataset import ImageFiles
    from studio.engine.loop.device_data import DeviceData

    req = DataloadRequest(**{**plan["request"], "size": tuple(plan["request"]["size"]) if plan["request"]["size"]
                             else None})
    paths, labels = plan.get("paths", []), plan.get("labels", [])
    classes, root = plan.get("classes", []), plan.get("folder", "")
    report = Reporter()
    cuda = torch.cuda.is_available()
    if req.device == "cuda" and not cuda:
        raise ConfigError("device cuda was asked for but PyTorch sees no CUDA GPU here; use cpu (or auto)")
    device = torch.device("cuda" if cuda and req.device != "cpu" else "cpu")
    on_gpu = device.type == "cuda"
    if not on_gpu:
        torch.set_num_threads(req.threads)
    sync: Callable[[], None] = torch.cuda.synchronize if on_gpu else (lambda: None)

    dataset: Any
    if plan.get("code_data"):  # a dataset that is code (python, hf_disk): its training items, read as training does
        dataset, x_all, y_all, classes, root, preload_s = code_source(req, report)
        paths, skips = list(range(len(y_all))), Skips()
    else:
        geo = Geometry(*plan["geometry"])
        x_np, kept, skips, preload_s = preload(paths, labels, geo, root, report)
        good = [paths[i] for i in kept]  # the loader reads only the files that decode
        good_labels = [labels[i] for i in kept]
        x_all = torch.from_numpy(x_np)
        y_all = torch.as_tensor(good_labels, dtype=torch.int64)
    mean, std = stats(x_all)
    mean_l, std_l = mean.flatten().tolist(), std.flatten().tolist()
    shape = tuple(x_all.shape[1:])
    if not plan.get("code_data"):
        dataset = ImageFiles(good, good_labels, geo.channels, (geo.height, geo.width), mean_l, std_l,
                             float(req.extra.get("slow_item_s", 0.0)))

    torch.manual_seed(req.seed)
    net = MODELS.build(req.model, input_shape=shape, num_classes=max(len(classes), 1), **req.params).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def compute(xb: torch.Tensor, yb: torch.Tensor) -> None:
        xb = xb if xb.is_floating_point() else xb.float()  # a code dataset's raw uint8 items
        opt.zero_grad(set_to_none=True)
        loss_fn(net(xb), yb).backward()
        opt.step()

    resident = DeviceData(x_all, y_all, mean, std, device)
    gen = torch.Generator().manual_seed(req.seed)
    for _ in range(3):  # warm-up: first calls of the kernels and the allocator are not the pipeline's cost
        idx = torch.randint(0, len(resident), (req.batch_size,), generator=gen)
        compute(*resident.batch(idx))
    sync()

    steps_per_epoch = req.steps // req.epochs
    workers = [int(w) for w in req.workers.split(",")]
    pins = (False, True) if on_gpu and req.pin_memory else (False,)
    configs = [(w, pin, persist) for w in workers for pin in pins
               for persist in ((False, True) if req.persistent and w > 0 else (False,))]
    plan_rows: list[tuple[str, Any]] = [("loader", c) for c in configs]
    if req.device_resident:
        plan_rows.append(("device", None))

    nvml = open_nvml() if on_gpu else "GPU utilisation is not measured: the sweep trains on the CPU"
    rows: list[dict[str, Any]] = []
    total = len(plan_rows)

    def timed(label: str, batches: Callable[[], Iterator[Any]], k: int) -> dict[str, Any]:
        waits: list[float] = []
        computes: list[float] = []
        firsts: list[float] = []
        budget = req.seconds / req.epochs if req.seconds else math.inf
        sampler = Sampler(nvml).start() if not isinstance(nvml, str) else None
        started = time.perf_counter()
        for _epoch in range(req.epochs):
            epoch_t = t0 = time.perf_counter()
            it = batches()
            LIVE.update(iterator=it, label=label)
            for s in range(steps_per_epoch):
                if s:
                    t0 = time.perf_counter()
                try:
                    xb, yb = next(it)
                except StopIteration:
                    break
                xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
                sync()
                t1 = time.perf_counter()
                compute(xb, yb)
                sync()
                t2 = time.perf_counter()
                waits.append(t1 - t0)
                computes.append(t2 - t1)
                if s == 0:
                    firsts.append(t1 - t0)
                done = (k + len(waits) / req.steps) / total
                report(0.15 + 0.85 * done, f"{label}: step {len(waits)}/{req.steps}")
                if s >= 1 and t2 - epoch_t > budget:
                    break
            del it
        wall = time.perf_counter() - started
        util, memory = sampler.stop() if sampler is not None else (None, None)
        n = len(waits)
        wait_s, compute_s = sum(waits), sum(computes)
        later = firsts[1:] or firsts
        return {"label": label, "steps": n, "samples_per_s": n * req.batch_size / wall if wall else 0.0,
                "step_ms": 1000 * (wait_s + compute_s) / n, "wait_ms": 1000 * wait_s / n,
                "compute_ms": 1000 * compute_s / n, "wait_share": wait_s / (wait_s + compute_s),
                "epoch_start_ms": 1000 * sum(later) / len(later), "first_batch_ms": 1000 * firsts[0],
                "speedup": 1.0, "gpu_util": util, "gpu_memory_mb": memory}

    for k, (kind, config) in enumerate(plan_rows):
        cpu0, wall0 = cpu_seconds(), time.perf_counter()
        if kind == "loader":
            w, pin, persist = config
            sampler_gen = torch.Generator().manual_seed(req.seed)
            loader = DataLoader(dataset, batch_size=req.batch_size, drop_last=True, num_workers=w,
                                pin_memory=pin, persistent_workers=persist,
                                prefetch_factor=req.prefetch_factor if w else None,
                                sampler=RandomSampler(dataset, num_samples=steps_per_epoch * req.batch_size,
                                                      generator=sampler_gen))
            row = timed(label_of(w, pin, persist), functools.partial(iter, loader), k)
            del loader
            row.update(kind="loader", workers=w, pin_memory=pin if on_gpu else None,
                       persistent=persist if w else None)
        else:
            def gathers() -> Iterator[Any]:
                perm = torch.randperm(len(resident), generator=gen)
                need = steps_per_epoch * req.batch_size
                perm = perm.repeat(math.ceil(need / len(perm)))[:need]
                for s in range(steps_per_epoch):
                    yield resident.batch(perm[s * req.batch_size:(s + 1) * req.batch_size])

            row = timed("device-resident", gathers, k)
            row.update(kind="device", workers=0, pin_memory=None, persistent=None)
        row["cpu_cores"] = (cpu_seconds() - cpu0) / (time.perf_counter() - wall0)  # workers joined: counted
        rows.append(row)
        emit("row", row=row)

    if isinstance(nvml, str):
        gpu = nvml
    else:
        nvml.close()
        gpu = ""
    notes = []
    if req.pin_memory and not on_gpu:
        notes.append("pin_memory is n/a on CPU (it pins host memory for faster copies to a GPU): measured without")
    if skips.count:
        notes.append(f"{skips.count} of {len(paths):,} files could not be decoded and were left out"
                     + (f" (e.g. {skips.examples[0]})" if skips.examples else ""))
    return {"rows": rows, "folder": root, "images": len(y_all), "skipped": skips.count,
            "skipped_examples": skips.examples, "classes": len(classes), "shape": list(shape), "model": req.model,
            "batch_size": req.batch_size, "steps": req.steps, "epochs": req.epochs, "device": device.type,
            "cores": os.cpu_count() or 1, "threads": torch.get_num_threads(),
            "start_method": multiprocessing.get_start_method(), "preload_s": preload_s,
            "decode_ms": 1000 * preload_s / len(paths),
            "pin_memory": ("measured" if req.pin_memory else "off") if on_gpu else "n/a on CPU",
            "gpu": gpu, "notes": notes}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
