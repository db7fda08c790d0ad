"""gpt_lm: tokens/s through Studio's trainer vs a plain PyTorch loop of the same model and data (target ratio
≥ 0.95), and the validation perplexity gpt_lm (characters and words) reaches on the bundled corpus beside lstm_lm
and the unigram baseline at equal training time.

Run on demand: ``nice -n 5 python -m pytest tests/benchmarks/test_gpt_speed.py -m benchmark -s``
(``STUDIO_BENCH_SECONDS`` sets the equal training time, 60 CPU seconds by default; the speed runs take ~10 s
each).
Both loops run in this process on the same threads, interleaved and the best of two kept: on a shared CPU
compare the ratio, not the absolute rates.
"""

from __future__ import annotations

import math
import os
import time

import pytest
import torch
from torch.nn import functional

from studio.core.config import RunConfig
from studio.core.datasets.loading import load_dataset
from studio.core.maths.objectives import IGNORE
from studio.core.models import MODELS
from studio.engine.training.distributed import DistContext
from studio.engine.training.sinks import NullSink
from studio.engine.training.trainer import Callback, Trainer
from studio.engine.training.worker import build_trainer

pytestmark = pytest.mark.benchmark

SPEED = ["data.name=fortunes", "data.tokenizer=char", "model.name=gpt_lm", "model.d_model=128", "model.heads=4",
         "model.layers=2", "model.context=128", "optimizer.name=adam", "optimizer.lr=0.003",
         "train.batch_size=32", "train.epochs=4"]


def _config(sets: list[str]) -> RunConfig:
    return RunConfig().with_overrides(sets)


def plain_loop(cfg: RunConfig) -> float:
    """The textbook loop over the same windows with the same model, Adam and loss: tokens per second."""
    data = load_dataset(cfg.data, seed=cfg.train.seed, model=cfg.model)
    torch.manual_seed(cfg.train.seed)
    model = MODELS.build(cfg.model.name, input_shape=data.input_shape, num_classes=data.num_classes,
                         **cfg.model.params)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.optimizer.params["lr"])
    x, y, batch = data.x_train, data.y_train, cfg.train.batch_size
    model.train()
    t0 = time.perf_counter()
    for _ in range(cfg.train.epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            out = model(x[idx])
            loss = functional.cross_entropy(out.reshape(-1, out.shape[-1]), y[idx].reshape(-1), ignore_index=IGNORE)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss.item()  # what such loops usually do to log
    return cfg.train.epochs * x.numel() / (time.perf_counter() - t0)


def studio_loop(cfg: RunConfig, folder: str) -> float:
    trainer = build_trainer(cfg, DistContext(), NullSink(), "bench", folder, None)
    summary = trainer.fit()
    return summary["epochs"] * trainer.train_data.x.numel() / summary["seconds"]


def test_gpt_tokens_per_second_vs_plain_loop(tmp_path):
    torch.set_num_threads(2)
    cfg = _config(SPEED)
    plain, studio = [], []
    for i in range(2):  # interleaved: a neighbour's load hits both alike
        plain.append(plain_loop(cfg))
        studio.append(studio_loop(cfg, str(tmp_path / f"run{i}")))
    print(f"\ngpt_lm char, d_model 128, 2 layers, context 128, batch 32, {torch.get_num_threads()} threads")
    print(f"plain PyTorch loop : {max(plain):8.0f} tokens/s  (runs: {', '.join(f'{v:.0f}' for v in plain)})")
    print(f"Studio trainer     : {max(studio):8.0f} tokens/s  (runs: {', '.join(f'{v:.0f}' for v in studio)})")
    print(f"ratio Studio/plain : {max(studio) / max(plain):.3f}  (target ≥ 0.95)")
    assert max(studio) > 0 and max(plain) > 0


class TimeLimit(Callback):
    """Stop after ``seconds`` of this process's CPU time (fair on a CPU shared with others: a neighbour's load
    does not shorten one model's budget); the best validation loss at epoch ends and at the stop."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.best, self.start = seconds, math.inf, 0.0

    def on_train_start(self, t: Trainer) -> None:
        self.start = time.process_time()

    def on_step_end(self, t: Trainer) -> None:
        if time.process_time() - self.start > self.seconds:
            t.request_stop("time")

    def on_epoch_end(self, t: Trainer) -> None:
        self.best = min(self.best, t.evaluate(t.val_data)[0])

    def on_train_end(self, t: Trainer) -> None:
        self.best = min(self.best, t.evaluate(t.val_data)[0])


LM = ["optimizer.name=adam", "optimizer.lr=0.003", "train.batch_size=64", "train.epochs=100000",
      "train.histogram_every=0", "train.trajectory_snapshots=false"]
RUNS = {  # name → overrides (the corpus's own vocabulary and validation lines in every run)
    "lstm_lm, words": ["data.name=fortunes", "model.name=lstm_lm", *LM],
    "gpt_lm, words": ["data.name=fortunes", "model.name=gpt_lm", "model.context=24", *LM],
    "lstm_lm, chars": ["data.name=fortunes", "data.tokenizer=char", "data.max_len=64", "model.name=lstm_lm", *LM],
    "gpt_lm, chars": ["data.name=fortunes", "data.tokenizer=char", "model.name=gpt_lm", "model.context=128", *LM],
}


def chars_per_word() -> float:
    """Characters (line ends included) per word in the validation lines: per-character perplexity P becomes
    about P ** chars_per_word per word (the character models also predict case and punctuation)."""
    from studio.core.datasets.text_data import split_lines
    from studio.core.text.store import corpus_lines
    from studio.core.text.tokenizer import words

    val = split_lines(corpus_lines("fortunes"), 0.1, 0.1)[1]
    return sum(len(s) + 1 for s in val) / sum(len(words(s)) for s in val)


def test_perplexity_at_equal_training_time(tmp_path):
    torch.set_num_threads(2)
    seconds = float(os.environ.get("STUDIO_BENCH_SECONDS", 60))
    cpw = chars_per_word()
    rows = []
    for tokenizer in ("word", "char"):
        cfg = _config(["data.name=fortunes", f"data.tokenizer={tokenizer}", "model.name=gpt_lm", "model.context=24"])
        data = load_dataset(cfg.data, model=cfg.model)
        rows.append((f"unigram, {tokenizer}s", data.meta["unigram_val_perplexity"], math.nan, 0, tokenizer))
    for name, sets in RUNS.items():
        cfg = _config(sets)
        trainer = build_trainer(cfg, DistContext(), NullSink(), "bench", str(tmp_path / name.replace(", ", "-")),
                                None)
        limit = TimeLimit(seconds)
        trainer.callbacks.append(limit)
        trainer.fit()
        final = math.exp(trainer.evaluate(trainer.val_data)[0])
        rows.append((name, final, math.exp(limit.best), trainer.step, name.rpartition(" ")[2].rstrip("s")))
    print(f"\nvalidation perplexity on fortunes after {seconds:.0f} CPU seconds of training each "
          f"({torch.get_num_threads()} threads); a character perplexity P is ≈ P^{cpw:.2f} per word")
    print(f"{'model':18} {'final':>9} {'best':>9} {'steps':>7} {'≈ per word':>11}")
    for name, final, best, steps, unit in rows:
        per_word = (best if not math.isnan(best) else final) ** cpw if unit == "char" else math.nan
        print(f"{name:18} {final:9.2f} {best:9.2f} {steps:7d} {per_word:11.1f}")
    gpt_char = next(r for r in rows if r[0] == "gpt_lm, chars")
    unigram_char = next(r for r in rows if r[0] == "unigram, chars")
    assert gpt_char[2] < unigram_char[1]
