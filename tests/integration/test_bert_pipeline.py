"""BERT end to end through the CLI (real subprocesses): pretrain bert_mlm on masked_lm, fine-tune a
bert_classifier from it (frozen first epoch) and one from scratch on fortune_sources, evaluate; a bad init_from
exits 2 before any run is created."""

from __future__ import annotations

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

SMALL = ["--set", "model.layers=1", "--set", "model.d_model=32", "--set", "model.heads=2", "--set",
         "model.context=17", "--set", "data.max_len=16", "--set", "train.batch_size=64", "--set",
         "hardware.threads=1"]


@pytest.mark.slow
def test_pretrain_then_fine_tune_then_evaluate():
    pre = run_cli("train", "--set", "data.name=masked_lm", "--set", "model.name=bert_mlm", "--set", "data.copies=1",
                  "--set", "train.epochs=1", *SMALL, "--json")
    assert pre.returncode == 0, pre.stderr
    mlm = last_json(pre.stdout)
    assert mlm["status"] == "finished" and mlm["val_perplexity"] < 2000  # below a uniform guess over the vocabulary
    gen = run_cli("generate", mlm["run_id"], "--seed", "the man")  # a masked LM does not write the next word
    assert gen.returncode == 2 and "fills in masked words" in gen.stderr and gen.stdout == "", gen.stderr
    fine = ["train", "--set", "data.name=fortune_sources", "--set", "model.name=bert_classifier", "--set",
            "train.epochs=2", *SMALL, "--json"]
    tuned = run_cli(*fine, "--set", f"model.init_from={mlm['run_id']}", "--set", "model.frozen_epochs=1")
    assert tuned.returncode == 0, tuned.stderr
    assert "fine-tuning stage 2 from epoch 2" in tuned.stderr
    result = last_json(tuned.stdout)
    info = RunStore().get(result["run_id"])
    assert info.run_config.data.params["vocab_from"] == mlm["run_id"]  # tokenized with the pretraining vocabulary
    import torch

    from studio.core.contracts import layout

    parent = torch.load(layout.final_path(RunStore().get(mlm["run_id"]).dir), weights_only=True)["model"]
    start = torch.load(layout.checkpoint_path(info.dir, 0), weights_only=True)["model"]  # the run's initial weights
    assert torch.equal(start["encoder.embed.weight"], parent["encoder.embed.weight"])  # started from the encoder
    scratch = run_cli(*fine, "--set", f"data.vocab_from={mlm['run_id']}")
    assert scratch.returncode == 0, scratch.stderr
    ev = run_cli("eval", result["run_id"], "--json")
    assert ev.returncode == 0, ev.stderr
    evaluation = last_json(ev.stdout)
    assert evaluation["accuracy"] == pytest.approx(result["test_acc"], abs=1e-6)
    assert len(evaluation["confusion"]) == 4

    before = len(RunStore().list())
    bad = run_cli(*fine, "--set", f"model.init_from={result['run_id']}")  # a classifier run, not a bert_mlm one
    assert bad.returncode == 2 and "not bert_mlm" in bad.stderr
    assert len(RunStore().list()) == before  # refused before a run was created
