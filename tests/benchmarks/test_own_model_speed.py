"""Your own model against the catalog's, side by side in one run (on demand:
``python -m pytest tests/benchmarks/test_own_model_speed.py -m benchmark -s``): on a shared CPU compare the ratios,
not the seconds.

- the catalog's ``mlp`` (512, 512, ReLU) against the same MLP written in a user's file, on the bundled Fashion-MNIST
  subset (held on the device for both): training samples/s, three interleaved pairs, the median ratio (target:
  the user file costs nothing, ratio ≥ 0.98);
- timm's ``resnet18`` against the catalog's torchvision ``resnet18`` with the same ImageNet stem
  (``small_input = no``) on 512 generated 3×32×32 images read from a user ``Dataset`` (a DataLoader) for both;
- the time from a dropped ``.py`` file to its form on the window (offscreen), and the parse of a large file.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

MLP_FILE = '''
import math
from torch import nn


def catalog_like_mlp(input_shape, num_classes, widths: list[int] = [512, 512]):
    layers, size = [nn.Flatten()], math.prod(input_shape)
    for width in widths:
        layers += [nn.Linear(size, width), nn.ReLU()]
        size = width
    return nn.Sequential(*layers, nn.Linear(size, num_classes))
'''
IMAGES_FILE = '''
import torch
from torch.utils.data import Dataset


class Images(Dataset):
    def __init__(self, split: str = "train", n: int = 512):
        g = torch.Generator().manual_seed({"train": 0, "val": 1, "test": 2}[split])
        self.x = torch.rand(n if split == "train" else 64, 3, 32, 32, generator=g)
        self.y = torch.randint(0, 10, (len(self.x),), generator=g)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], int(self.y[i])
'''


def samples_per_s(store, overrides: list[str]) -> float:
    from studio.core.config import RunConfig
    from studio.engine.training.launcher import launch

    cfg = RunConfig().with_overrides(overrides)
    job = launch(cfg, store)
    assert job.wait(1800) == "finished", job.errors
    steps, seconds = job.summary["steps"], job.summary["seconds"]
    return steps * cfg.train.batch_size / seconds


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f}, {five:.1f}, {fifteen:.1f} on {os.cpu_count() or 0} cores"


def test_user_file_mlp_against_the_catalog_mlp(tmp_path: Path, studio_home: Path) -> None:
    from studio.core.runs.store import RunStore

    path = tmp_path / "my_mlp.py"
    path.write_text(MLP_FILE)
    store = RunStore(studio_home)
    common = ["train.epochs=2", "train.batch_size=128", "hardware.threads=1", "train.histogram_every=0"]
    catalog = ["model.name=mlp", *common]
    user = ["model.name=python", f"model.path={path}", "model.class=catalog_like_mlp", *common]
    pairs = []
    for _ in range(3):
        a = samples_per_s(store, catalog)
        b = samples_per_s(store, user)
        pairs.append((a, b, b / a))
    print(f"\nMLP 784-512-512-10 on fashion_mnist_small, 2 epochs, 1 thread ({load()})")
    for a, b, r in pairs:
        print(f"  catalog mlp {a:9,.0f} samples/s   user file {b:9,.0f} samples/s   ratio {r:.3f}")
    ratio = statistics.median(r for _, _, r in pairs)
    print(f"  median ratio user / catalog: {ratio:.3f} (target ≥ 0.98)")
    assert ratio >= 0.95, "the user file's MLP is more than 5 % slower than the catalog's"


def test_timm_resnet18_against_the_catalog_resnet18(tmp_path: Path, studio_home: Path) -> None:
    from studio.core.runs.store import RunStore

    path = tmp_path / "images.py"
    path.write_text(IMAGES_FILE)
    store = RunStore(studio_home)
    data = ["data.name=python", f"data.path={path}", "data.class=Images", "data.workers=1", "train.epochs=1",
            "train.batch_size=64", "train.histogram_every=0"]
    print(f"\nResNet-18 (ImageNet stem) on 512 3×32×32 images through a DataLoader, 1 epoch ({load()})")
    ratios = []
    for _ in range(2):
        catalog = samples_per_s(store, ["model.name=resnet18", "model.small_input=no", *data])
        timm = samples_per_s(store, ["model.name=timm", "model.arch=resnet18", "model.pretrained=false", *data])
        ratios.append(timm / catalog)
        print(f"  catalog (torchvision) {catalog:7,.1f} samples/s   timm {timm:7,.1f} samples/s   "
              f"ratio timm / catalog {timm / catalog:.3f}")
    print(f"  median ratio timm / catalog: {statistics.median(ratios):.3f}")


def test_time_from_a_dropped_file_to_its_form(qtbot, tmp_path: Path, studio_home: Path) -> None:
    from PySide6.QtWidgets import QComboBox

    from studio.core.host.paths import resource
    from studio.core.runs.store import RunStore
    from studio.core.usercode.reader import read_file
    from studio.gui.app import commands
    from studio.gui.app.main_window import MainWindow
    from tests.gui.conftest import new_session

    win = MainWindow(new_session(RunStore(studio_home)), probe_backend=False)
    qtbot.addWidget(win)
    win.show()
    example = resource("examples", "my_model.py")
    times = []
    for _ in range(5):
        win.session.set_choice("model", "mlp")
        win.settings.reload()
        started = time.perf_counter()
        commands.open_path(win.shell, str(example))
        classes = win.settings.forms["model"].findChild(QComboBox, "model_code_class")
        assert classes is not None and classes.count() == 2
        times.append(time.perf_counter() - started)
    big = tmp_path / "big.py"
    big.write_text(example.read_text() + "".join(
        f"\n\nclass Block{i}(nn.Module):\n    def __init__(self, width: int = {i}, act: str = 'relu'):\n"
        f"        super().__init__()\n        self.fc = nn.Linear(width, width)\n" for i in range(1000)))
    started = time.perf_counter()
    found = read_file(big)
    parse = time.perf_counter() - started
    print(f"\ndrop → form of resources/examples/my_model.py: median {statistics.median(times) * 1000:.1f} ms "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}; {load()})")
    print(f"parse of a {len(big.read_text().splitlines()):,}-line file with {len(found.definitions):,} classes: "
          f"{parse * 1000:.1f} ms")
    win.session.shutdown(wait_s=5)
