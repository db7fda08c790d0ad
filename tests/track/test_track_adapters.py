"""The Lightning logger and the Hugging Face callback, against the real libraries on tiny models."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.core.runs.store import RunStore


def test_lightning_logger_records_a_run(tmp_path: Path, studio_home: Path) -> None:
    L = pytest.importorskip("lightning")
    import torch

    from studio.track.lightning import StudioLogger

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

    logger = StudioLogger(name="tiny-lightning", tags=["lightning"])
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    trainer = L.Trainer(max_steps=6, logger=logger, log_every_n_steps=1, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, accelerator="cpu", devices=1,
                        default_root_dir=str(tmp_path))
    trainer.fit(Tiny(), torch.utils.data.DataLoader(data, batch_size=8))
    store = RunStore()
    info = store.get(logger.version)
    assert info.status == "finished" and info.name == "tiny-lightning" and info.tags == ["lightning"]
    curves = store.curves([info.id])[info.id]
    assert len(curves["train/loss"]) == 6
    assert store.params(info.id)["hidden"] == 8 and store.params(info.id)["lr"] == 0.05


def test_hf_trainer_callback_records_a_run(tmp_path: Path, studio_home: Path) -> None:
    transformers = pytest.importorskip("transformers")
    import torch

    from studio.track.hf import StudioCallback, metric_name

    config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=16, num_labels=2)
    model = transformers.BertForSequenceClassification(config)
    gen = torch.Generator().manual_seed(0)
    rows = [{"input_ids": torch.randint(1, 50, (8,), generator=gen), "labels": int(i % 2)} for i in range(32)]
    args = transformers.TrainingArguments(output_dir=str(tmp_path / "out"), max_steps=4, logging_steps=1,
                                          per_device_train_batch_size=8, report_to=[], save_strategy="no",
                                          use_cpu=True, learning_rate=1e-3, disable_tqdm=True)
    callback = StudioCallback(name="tiny-bert", tags=["hf"])
    trainer = transformers.Trainer(model=model, args=args, train_dataset=rows, callbacks=[callback])
    trainer.train()
    store = RunStore()
    info = store.get(callback.run.id)
    assert info.status == "finished" and info.tags == ["hf"]
    curves = store.curves([info.id])[info.id]
    assert list(curves["train/loss"].steps) == [1, 2, 3, 4]
    assert "train/learning_rate" in curves
    params = store.params(info.id)
    assert params["learning_rate"] == 1e-3 and params["model.hidden_size"] == 16
    assert metric_name("eval_accuracy") == "eval/accuracy" and metric_name("loss") == "train/loss"
