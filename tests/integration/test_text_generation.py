"""A short next-word run on the bundled corpus beats the unigram baseline, and `studio generate`
continues a seed with the requested number of in-vocabulary words (real subprocesses)."""

from __future__ import annotations

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

TEXT_RUN = ('[data]\nname = "fortunes"\nvocab_size = 500\nmax_len = 8\n'
            '[model]\nname = "lstm_lm"\nembedding = 32\nhidden = 64\ndropout = 0.3\n'
            '[optimizer]\nname = "adam"\nlr = 0.005\n[train]\nepochs = 5\nbatch_size = 64\n'
            '[hardware]\nthreads = 1\n')  # one thread: steady on a busy 2-core machine (docs/developer/jobs.md)


def test_lstm_beats_the_unigram_baseline_and_generates_known_words(tmp_path):
    from studio.core.config import Choice
    from studio.core.config.data_loading import load_dataset

    data = load_dataset(Choice("fortunes", {"vocab_size": 500, "max_len": 8, "val_fraction": 0.1,
                                            "test_fraction": 0.1}))
    unigram = data.meta["unigram_val_perplexity"]
    config = tmp_path / "text.toml"
    config.write_text(TEXT_RUN)
    proc = run_cli("train", "--config", str(config), "--json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc.stdout)
    print(f"validation perplexity {result['val_perplexity']:.1f} vs unigram baseline {unigram:.1f}")
    assert result["val_perplexity"] < 0.8 * unigram, (result, unigram)
    rows = RunStore().metrics(result["run_id"])
    assert {"train/perplexity", "val/perplexity", "test/perplexity"} <= set(rows)

    vocab = set(data.classes[2:])  # neither padding nor <oov>
    cli = run_cli("generate", result["run_id"], "--seed", "the man", "--words", "8", "--json")
    assert cli.returncode == 0, cli.stderr
    greedy = last_json(cli.stdout)
    assert len(greedy["words"]) == 8 and set(greedy["words"]) <= vocab
    assert greedy["text"].startswith("the man ")
    from studio.engine.tasks.generate import generate

    run_dir = RunStore().get(result["run_id"]).dir
    assert generate(run_dir, "the man", 8)["words"] == greedy["words"]  # temperature 0 is greedy: always the same
    sampled = generate(run_dir, "you will", 12, temperature=1.5, sample_seed=3)["words"]
    assert len(sampled) == 12 and set(sampled) <= vocab

    bad = run_cli("generate", result["run_id"], "--seed", "x", "--words", "0")
    assert bad.returncode == 2 and "--words" in bad.stderr
