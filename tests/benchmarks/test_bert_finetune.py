"""BERT: fine-tuned from masked-LM pretraining vs trained from scratch on the same labels, at equal steps.

Run on demand: ``python -m pytest tests/benchmarks/test_bert_finetune.py -m benchmark -s``. Pretrains a small
bert_mlm on the training lines of fortune_sources (labels unused), then, with all the training labels and with
20 % of them, trains two bert_classifiers of the same shape, tokenization (the pretraining vocabulary), optimizer,
batch and epochs — one from the pretrained encoder, one from random weights — and prints their test accuracies
beside the pretraining's masked-LM accuracy. Each is a run in the store, so their curves overlay in the window
(BERT_BENCH_KEEP=DIR copies the run store there). Sizes are set by BERT_BENCH_* variables (defaults: about seven
minutes on two shared cores).
"""

from __future__ import annotations

import os
import shutil

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

pytestmark = pytest.mark.benchmark


def _env(name: str, default: object) -> str:
    return os.environ.get(f"BERT_BENCH_{name}", str(default))


def test_fine_tuned_vs_from_scratch(studio_home):
    shape = ["--set", f"model.layers={_env('LAYERS', 2)}", "--set", f"model.d_model={_env('D_MODEL', 64)}",
             "--set", "model.heads=4", "--set", "model.context=33", "--set", "data.max_len=32",
             "--set", "hardware.threads=2"]
    pre = run_cli("train", "--name", "bert_mlm pretraining", "--set", "data.name=masked_lm", "--set",
                  "model.name=bert_mlm", "--set", f"data.copies={_env('COPIES', 4)}", "--set",
                  f"train.epochs={_env('PRE_EPOCHS', 8)}", "--set", "train.batch_size=64", *shape, "--json",
                  timeout=1500)
    assert pre.returncode == 0, pre.stderr
    mlm = last_json(pre.stdout)
    print(f"\nbert_mlm pretraining: {mlm['steps']} steps, {mlm['seconds']:.0f} s; masked-LM test accuracy "
          f"{mlm['test_acc']:.3f} (perplexity {mlm['test_perplexity']:.0f}) over the chosen words")
    for fraction in (1.0, float(_env("FEW_LABELS", 0.2))):
        fine = ["train", "--set", "data.name=fortune_sources", "--set", "model.name=bert_classifier", "--set",
                f"train.epochs={_env('FT_EPOCHS', 6)}", "--set", "train.batch_size=32", "--set",
                "optimizer.lr=0.0005", "--set", f"data.vocab_from={mlm['run_id']}", "--set",
                f"data.label_fraction={fraction}", *shape, "--json"]
        tuned = run_cli(*fine, "--name", f"fine-tuned from bert_mlm, {fraction:.0%} labels", "--set",
                        f"model.init_from={mlm['run_id']}", timeout=900)
        assert tuned.returncode == 0, tuned.stderr
        scratch = run_cli(*fine, "--name", f"from scratch, {fraction:.0%} labels", timeout=900)
        assert scratch.returncode == 0, scratch.stderr
        t, s = last_json(tuned.stdout), last_json(scratch.stdout)
        assert t["steps"] == s["steps"]
        print(f"fortune_sources, {fraction:.0%} of the training labels, {t['steps']} steps each: test accuracy "
              f"fine-tuned {t['test_acc']:.3f} vs from scratch {s['test_acc']:.3f} (best validation accuracy "
              f"{_best(t['run_id']):.3f} vs {_best(s['run_id']):.3f}); chance ≈ 0.32 (the largest class)")
    keep = os.environ.get("BERT_BENCH_KEEP")
    if keep:
        shutil.copytree(studio_home, keep, dirs_exist_ok=True)


def _best(run_id: str) -> float:
    return max(RunStore().metrics(run_id).get("val/acc", ([], [0.0]))[1])
