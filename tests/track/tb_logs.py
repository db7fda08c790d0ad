"""TensorBoard logs written by the real writers, for the import tests and the benchmark."""

from __future__ import annotations

from pathlib import Path


def summary_writer_run(folder: Path, steps: int = 20, hparams: bool = True, histograms: bool = True) -> Path:
    """A ``SummaryWriter`` folder: two scalars per step, a weight histogram every 5 steps, and hparams."""
    import numpy as np
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(folder))
    rng = np.random.default_rng(0)
    for step in range(steps):
        writer.add_scalar("train/loss", 1.0 / (step + 1), step)
        writer.add_scalar("lr", 0.01, step)
        if histograms and step % 5 == 0:
            writer.add_histogram("fc.weight", rng.normal(0, 1 + step / 10, 500), step)
    if hparams:
        writer.add_hparams({"lr": 0.01, "batch_size": 64, "optimizer": "adamw"}, {"hparam/val_acc": 0.9})
    writer.close()
    return folder


def lightning_logs(root: Path, steps: int = 6) -> Path:
    """``root/lightning_logs/version_0``: a tiny Lightning model trained for ``steps`` steps with its
    TensorBoardLogger (scalars every step, its hparams)."""
    import lightning as L
    import torch
    from lightning.pytorch.loggers import TensorBoardLogger

    class Tiny(L.LightningModule):
        def __init__(self, lr: float = 0.05, hidden: int = 8) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 2))

        def training_step(self, batch, _index):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            self.log("train/loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    trainer = L.Trainer(max_steps=steps, logger=TensorBoardLogger(str(root), name="lightning_logs"),
                        log_every_n_steps=1, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, accelerator="cpu", devices=1)
    trainer.fit(Tiny(), torch.utils.data.DataLoader(data, batch_size=8))
    return root / "lightning_logs"
