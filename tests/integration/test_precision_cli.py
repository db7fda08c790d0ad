"""`studio train` with train.precision and train.accumulate_steps as a user types them: fp16 on the CPU refused with
exit 2 and one sentence before any process starts; a bf16 run with accumulation shows its global batch."""

from __future__ import annotations

import json

from studio.core.runs.store import RunStore
from tests.conftest import run_cli

TINY = ["--set", "data.name=moons", "--set", "data.n_samples=300", "--set", "model.name=mlp",
        "--set", "model.widths=16", "--set", "train.epochs=1", "--set", "train.batch_size=16"]


def test_fp16_on_the_cpu_exits_2_with_one_sentence_and_starts_no_run(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    proc = run_cli("train", *TINY, "--set", "train.precision=fp16")
    assert proc.returncode == 2
    error = [line for line in proc.stderr.splitlines() if line.startswith("studio: error:")]
    assert error == ["studio: error: train.precision=fp16 needs a CUDA GPU (its gradient scaler guards float16's "
                     "narrow range there); on the CPU use bf16 or fp32"]
    assert RunStore(tmp_path).list() == []


def test_a_bf16_run_with_accumulation_shows_batch_times_k_times_ranks(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    proc = run_cli("train", "--json", *TINY, "--set", "train.precision=bf16", "--set", "train.accumulate_steps=4")
    assert proc.returncode == 0, proc.stderr
    assert "global batch 16 × 4 × 1 = 64 samples per optimizer step" in proc.stderr
    assert "precision bf16" in proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == "finished" and result["steps"] == 5  # 270 samples: 17 micro-batches of 16, 4 per step

