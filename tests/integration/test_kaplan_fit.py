"""Scaling laws on gpt_lm: `studio fit --against non_embedding` fits the final loss of runs of several widths
against Kaplan et al.'s N (parameters outside the embeddings), and a tied output layer counts once."""

from __future__ import annotations

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

TINY = ("--set", "data.name=fortunes", "--set", "data.tokenizer=char", "--set", "model.name=gpt_lm",
        "--set", "model.heads=2", "--set", "model.layers=1", "--set", "model.context=32", "--set", "train.epochs=1",
        "--set", "optimizer.name=adam", "--set", "optimizer.lr=0.01", "--set", "hardware.threads=1")


@pytest.mark.slow  # four small training runs through the CLI
def test_fit_against_non_embedding_parameters_of_gpt_widths() -> None:
    runs = []
    for width in (8, 16, 24, 32):
        proc = run_cli("train", *TINY, "--set", f"model.d_model={width}", "--json")
        assert proc.returncode == 0, proc.stderr
        runs.append(last_json(proc.stdout))
    ids = [r["run_id"] for r in runs]
    fit = run_cli("fit", *ids, "--against", "non_embedding", "--json")
    assert fit.returncode == 0, fit.stderr
    out = last_json(fit.stdout)
    assert out["against"] == "non_embedding"
    assert out["fits"][0]["data"]["x"] == sorted(float(r["n_params_non_embedding"]) for r in runs)
    # per block: attention 4d²+4d, MLP 8d²+5d, two LayerNorms 4d; then the final LayerNorm 2d
    assert out["fits"][0]["data"]["x"] == [float(12 * d * d + 13 * d + 2 * d) for d in (8, 16, 24, 32)]

    from studio.engine.replay import RunData
    from studio.engine.tasks.fit_runs import parameter_count

    run_dir = RunStore().get(ids[-1]).dir  # the head is tied to the embedding: saved twice, counted once
    assert parameter_count(run_dir) == sum(p.numel() for p in RunData(run_dir, device="cpu").model.parameters())
