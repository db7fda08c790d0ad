"""gpt_lm through the real CLI: train a character-level model with --set, generate characters with top-k,
evaluate it, resume it, train it on 2 CPU ranks (gloo), and refuse bad input with exit 2 before any run exists."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

TINY = ("--set", "data.name=fortunes", "--set", "data.tokenizer=char", "--set", "model.name=gpt_lm",
        "--set", "model.d_model=32", "--set", "model.heads=2", "--set", "model.layers=1", "--set", "model.context=32",
        "--set", "optimizer.name=adam", "--set", "optimizer.lr=0.01", "--set", "train.batch_size=32",
        "--set", "hardware.threads=1")


@pytest.mark.slow  # four CLI processes: ~15 s alone, more on a busy machine
def test_character_gpt_trains_generates_evaluates_and_resumes() -> None:
    proc = run_cli("train", *TINY, "--set", "train.epochs=1", "--json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    assert result["status"] == "finished" and result["val_perplexity"] < 40  # characters: 85 of them
    assert result["n_params_non_embedding"] > 0
    run_id = result["run_id"]
    assert {"train/perplexity", "val/perplexity"} <= set(RunStore().metrics(run_id))

    att = run_cli("attention", run_id, "--text", "The cat", "--json")  # snapshots were taken while it trained
    assert att.returncode == 0, att.stderr
    maps = last_json(att.stdout)
    assert maps["kind"] == "text" and maps["causal"] and maps["tokens"] == list("The cat")
    weights = np.asarray(maps["maps"])  # (layers, heads, T, T)
    assert weights.shape == (1, 2, 7, 7) and np.allclose(weights.sum(-1), 1, atol=1e-3)
    assert np.abs(np.triu(weights, 1)).max() == 0  # no character attends to a later one
    assert maps["step"] == result["steps"] and maps["steps"][0] == 0

    gen = run_cli("generate", run_id, "--seed", "The ", "--words", "40", "--temperature", "0.8", "--top-k", "5",
                  "--sample-seed", "1", "--json")
    assert gen.returncode == 0, gen.stderr
    out = last_json(gen.stdout)
    assert out["tokenizer"] == "char" and out["top_k"] == 5 and len(out["words"]) == 40
    assert all(len(c) == 1 for c in out["words"]) and out["text"] == "The " + "".join(out["words"])

    ev = run_cli("eval", run_id, "--split", "val", "--json")
    assert ev.returncode == 0, ev.stderr
    summary = last_json(ev.stdout)
    assert summary["accuracy"] == pytest.approx(result["val_acc"], abs=1e-6)  # one sample per counted token

    again = run_cli("train", "--resume", run_id, "--set", "train.epochs=2", "--json")
    assert again.returncode == 0, again.stderr
    resumed = last_json(again.stdout)
    assert resumed["run_id"] == run_id and resumed["epochs"] == 2 and resumed["steps"] == 2 * result["steps"]


@pytest.mark.slow
def test_gpt_trains_on_two_cpu_ranks() -> None:
    proc = run_cli("train", *TINY, "--set", "train.epochs=1", "--set", "hardware.processes=2", "--json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    assert result["world_size"] == 2 and result["status"] == "finished"


@pytest.mark.parametrize(("sets", "says"), [
    (("model.name=gpt_lm", "model.context=40"), "longest line of fortunes has 28"),
    (("model.name=gpt_lm", "model.d_model=30"), "heads (4) must divide d_model (30)"),
    (("model.name=cnn",), "fortunes is a text dataset"),
])
def test_bad_gpt_input_is_one_sentence_and_no_run(sets: tuple[str, ...], says: str) -> None:
    before = len(RunStore().list())
    args = [a for s in ("data.name=fortunes", *sets) for a in ("--set", s)]
    proc = run_cli("train", *args)
    assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr
    assert len(RunStore().list()) == before
