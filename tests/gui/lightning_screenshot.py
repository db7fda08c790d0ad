"""The README's picture of a Lightning run in Studio: two small Lightning trainings recorded with ``StudioLogger``
into ``STUDIO_HOME``, then the real window (xcb) with both selected, shot at WIDTHxHEIGHT::

    STUDIO_HOME=/tmp/h STUDIO_THEME=dark xvfb-run -a -s "-screen 0 1280x800x24" \\
        python -m tests.gui.lightning_screenshot 1280x800 OUT_DIR

(``train`` as the first argument only records the runs.)"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def train(lr: float, steps: int = 600) -> str:
    import lightning as L
    import torch

    from studio.track.lightning import StudioLogger

    class Spirals(L.LightningModule):
        def __init__(self, lr: float, hidden: int = 64) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.last: float | None = None
            self.net = torch.nn.Sequential(torch.nn.Linear(2, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                                           torch.nn.ReLU(), torch.nn.Linear(hidden, 3))

        def step(self, batch, split: str):
            x, y = batch
            out = self.net(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            self.log(f"{split}/loss", loss, on_step=split == "train", on_epoch=split == "val")
            self.log(f"{split}/acc", (out.argmax(1) == y).float().mean(), on_step=split == "train",
                     on_epoch=split == "val")
            return loss

        def training_step(self, batch, _i):
            if self.global_step % 20 == 0:  # samples/s over the last 20 steps, as Studio's runs log it
                now = time.perf_counter()
                if self.last is not None:
                    self.log("throughput", 20 * len(batch[0]) / (now - self.last))
                self.last = now
            self.log("lr", self.trainer.optimizers[0].param_groups[0]["lr"])
            return self.step(batch, "train")

        def validation_step(self, batch, _i):
            self.step(batch, "val")

        def configure_optimizers(self):
            opt = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": torch.optim.lr_scheduler.CosineAnnealingLR(
                opt, T_max=steps), "interval": "step"}}

    gen = torch.Generator().manual_seed(0)
    n = 1500
    y = torch.randint(0, 3, (n,), generator=gen)
    t = torch.rand(n, generator=gen) * 3
    angle = t * 2.2 + y * (2 * torch.pi / 3)
    x = torch.stack([t * torch.cos(angle), t * torch.sin(angle)], 1) + 0.15 * torch.randn(n, 2, generator=gen)
    data = torch.utils.data.TensorDataset(x, y)
    train_set, val_set = torch.utils.data.random_split(data, [1200, 300], generator=gen)
    logger = StudioLogger(name=f"spirals lr={lr}", tags=["lightning"])
    trainer = L.Trainer(max_steps=steps, logger=logger, log_every_n_steps=5, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, accelerator="cpu", devices=1,
                        val_check_interval=50, check_val_every_n_epoch=None)
    trainer.fit(Spirals(lr), torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True),
                torch.utils.data.DataLoader(val_set, batch_size=300))
    return logger.version


def shoot(size: str, out: Path) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from tests.gui.real_window_driver import open_window

    app, window = open_window(size)
    try:
        runs = [r.id for r in window.session.store.list()]
        window.session.set_selection(runs)
        curves = window.curves_pane.curves
        for _ in range(100):
            QTest.qWait(100)
            if not curves.loading and all(r in curves.series for r in runs):
                break
        QTest.qWait(800)
        out.mkdir(parents=True, exist_ok=True)
        QGuiApplication.primaryScreen().grabWindow(0, 0, 0, *map(int, size.split("x"))).save(
            str(out / f"lightning-{size}-{os.environ.get('STUDIO_THEME', 'light')}.png"))
    finally:
        window.close()
        window.session.shutdown(wait_s=10)
        del app


if __name__ == "__main__":
    if sys.argv[1] == "train":
        for rate in (0.02, 0.1):
            print(train(rate))
    else:
        shoot(sys.argv[1], Path(sys.argv[2]))
