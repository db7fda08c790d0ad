"""Your own model against the catalog's, side by side in one run (on demand:
``python -m pytest tests/benchmarks/test_own_model_speed.py -m benchmark -s``): on a shared CPU compare the ratios,
not the seconds.

- the catalog's ``mlp`` (512, 512, ReLU) against the same MLP written in a user's file, on the bundled Fashion-MNIST
  subset: Studio's own training step (``Trainer.train_step``, built by ``build_trainer``) on the same batches, the
  two models in turns over several rounds, the median of the per-round ratios (target: the user file costs
  nothing, ratio ≥ 0.98);
- timm's ``resnet18`` against the catalog's torchvision ``resnet18`` with the same ImageNet stem
  (``small_input = no``) on generated 3×32×32 images from a user ``Dataset``, measured the same way;
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


def interleaved(configs: dict[str, list[str]], rounds: int = 8, steps: int = 10) -> dict[str, list[float]]:
    """Training samples/s of each config's model, measured round by round in turns (the same batches, Studio's
    own ``Trainer.train_step``, one CPU thread), so a change of load on a shared machine hits them alike."""
    import torch

    from studio.core.config import RunConfig
    from studio.engine.loop.distributed import DistContext
    from studio.engine.loop.sinks import NullSink
    from studio.engine.training.worker import build_trainer

    torch.set_num_threads(1)
    ctx = DistContext(0, 1, torch.device("cpu"))
    trainers = {name: build_trainer(RunConfig().with_overrides(o), ctx, NullSink(), name, "", None)
                for name, o in configs.items()}
    first = next(iter(trainers.values()))
    batch = first.batch
    batches = [first.train_data.batch(torch.arange(i * batch, (i + 1) * batch)) for i in range(steps)]
    out: dict[str, list[float]] = {name: [] for name in trainers}
    for trainer in trainers.values():  # warm-up: the first calls of the kernels and the allocator
        for b in batches[:2]:
            trainer.train_step([b], [len(b[1])])
    for _ in range(rounds):
        for name, trainer in trainers.items():
            started = time.perf_counter()
            for b in batches:
                trainer.train_step([b], [len(b[1])])
            out[name].append(steps * batch / (time.perf_counter() - started))
    return out


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f}, {five:.1f}, {fifteen:.1f} on {os.cpu_count() or 0} cores"


def report(title: str, speeds: dict[str, list[float]], a: str, b: str) -> float:
    ratios = [y / x for x, y in zip(speeds[a], speeds[b], strict=True)]
    print(f"\n{title} ({load()})")
    for name, values in speeds.items():
        print(f"  {name:<28} median {statistics.median(values):9,.0f} samples/s  "
              f"(rounds: {', '.join(f'{v:,.0f}' for v in values)})")
    ratio = statistics.median(ratios)
    print(f"  median of the per-round ratios {b} / {a}: {ratio:.3f} (rounds: "
          f"{', '.join(f'{r:.2f}' for r in ratios)})")
    return ratio


def test_user_file_mlp_against_the_catalog_mlp(tmp_path: Path) -> None:
    path = tmp_path / "my_mlp.py"
    path.write_text(MLP_FILE)
    common = ["train.batch_size=128"]
    speeds = interleaved({
        "catalog mlp": ["model.name=mlp", *common],
        "user file catalog_like_mlp": ["model.name=python", f"model.path={path}", "model.class=catalog_like_mlp",
                                       *common],
    })
    ratio = report("MLP 784-512-512-10 on fashion_mnist_small batches of 128, Adam, 1 thread", speeds,
                   "catalog mlp", "user file catalog_like_mlp")
    assert ratio >= 0.95, "the user file's MLP trains more than 5 % slower than the catalog's (target ≥ 0.98)"


def test_timm_resnet18_against_the_catalog_resnet18(tmp_path: Path) -> None:
    path = tmp_path / "images.py"
    path.write_text(IMAGES_FILE)
    data = ["data.name=python", f"data.path={path}", "data.class=Images", "data.workers=0", "train.batch_size=32"]
    speeds = interleaved({
        "catalog resnet18": ["model.name=resnet18", "model.small_input=no", *data],
        "timm resnet18": ["model.name=timm", "model.arch=resnet18", "model.pretrained=false", *data],
    }, rounds=4, steps=4)
    report("ResNet-18 (ImageNet stem) on batches of 32 3×32×32 images, Adam, 1 thread", speeds,
           "catalog resnet18", "timm resnet18")


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
