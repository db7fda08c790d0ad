"""The input pipeline on an imported folder of 10,000 PNG files: DataLoader workers 0, 1, 2, 4 (each with and
without persistent workers) against Studio's device-resident path, in one run — samples/s, the ratio to 0
workers, the share of each step spent waiting for data, the epoch-start cost and the cores each configuration got.

The files are the first 10,000 Fashion-MNIST training images (Debian's dataset-fashion-mnist IDX files, else the
bundled subset) enlarged 4× to 112×112 so decoding costs something, written once to a cached temp folder. Each item
is decoded by Pillow and resized to 64×64 by torchvision transforms; the model is the sweep's small MLP.

Run with ``pytest -m benchmark -s tests/benchmarks/test_dataload_sweep.py``.
"""

from __future__ import annotations

import os
import platform
import tempfile
from pathlib import Path

import numpy as np
import pytest

from studio.core.contracts.dataload import DataloadRequest
from studio.engine.dataload.pngs import write_pngs
from studio.engine.dataload.sweep import run_sweep

N, SCALE = 10_000, 4
DEBIAN = Path("/usr/share/datasets/fashion-mnist")
CLASSES = ["T-shirt_top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle_boot"]

pytestmark = pytest.mark.benchmark


def png_folder() -> Path:
    """The 10,000 PNG files, written once (a ``done`` file marks a complete folder)."""
    target = Path(tempfile.gettempdir()) / f"studio-bench-dataload-{N}-x{SCALE}"
    if (target / "done").exists():
        return target
    if (DEBIAN / "train-images-idx3-ubyte.gz").exists():
        from studio.core.datasets.idx import read_idx

        x = read_idx(DEBIAN / "train-images-idx3-ubyte.gz")[:N, None]
        y = read_idx(DEBIAN / "train-labels-idx1-ubyte.gz")[:N]
    else:
        from studio.core.host.paths import resource

        with np.load(resource("data", "fashion_mnist_small.npz")) as npz:
            x, y = npz["x_train"][:N, None], npz["y_train"][:N]
    write_pngs(x, y, CLASSES, target, scale=SCALE)
    (target / "done").write_text("complete\n")
    return target


def test_workers_sweep_against_the_device_resident_path():
    folder = png_folder()
    out = run_sweep(DataloadRequest(folder=str(folder), workers="0,1,2,4", persistent=True, batch_size=64,
                                    steps=60, epochs=2, limit=N))
    print(f"\n{out['images']:,} PNG files {SCALE * 28}×{SCALE * 28} → {'×'.join(map(str, out['shape']))}, "
          f"{out['model']}, batch {out['batch_size']}, {out['steps']} steps over {out['epochs']} epochs per "
          f"configuration; {out['device']}, {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
          f"workers start by {out['start_method']}; decoding every file once took {out['preload_s']:.1f} s")
    print(f"{'configuration':<24} {'samples/s':>10} {'× w=0':>6} {'waiting':>8} {'wait ms':>8} {'compute ms':>10} "
          f"{'epoch start ms':>14} {'cores':>6}")
    for r in out["rows"]:
        print(f"{r['label']:<24} {r['samples_per_s']:>10,.0f} {r['speedup']:>5.2f}× {r['wait_share']:>7.0%} "
              f"{r['wait_ms']:>8.1f} {r['compute_ms']:>10.1f} {r['epoch_start_ms']:>14.0f} {r['cpu_cores']:>6.2f}")
    print(f"verdict: {out['verdict']}")
    rows = {r["label"]: r for r in out["rows"]}
    assert len(rows) == 8 and out["images"] == N and out["skipped"] == 0
    # the device-resident path does not decode per step: it must beat the plainest loader by far
    assert rows["device-resident"]["samples_per_s"] > 2 * rows["0 workers"]["samples_per_s"]
