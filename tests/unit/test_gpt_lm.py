"""gpt_lm and what it needs: shifted token windows, the character tokenizer, causality, tied weights, top-k,
the token task's landscape losses and the refusals before any process starts (all in-process, small)."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError


def test_token_windows_shift_targets_by_one_and_ignore_the_padding() -> None:
    from studio.core.datasets.text.sequences import token_windows
    from studio.core.maths.objectives import IGNORE

    x, y = token_windows([[5, 6, 7, 8, 9, 10], [3, 4], [2]], context=3)
    assert x.tolist() == [[5, 6, 7], [8, 9, 0], [3, 0, 0]]
    assert y.tolist() == [[6, 7, 8], [9, 10, IGNORE], [4, IGNORE, IGNORE]]
    # every token but each list's first is a target exactly once (as in the prefix pairs of lstm_lm)
    assert sorted(y[y != IGNORE].tolist()) == [4, 6, 7, 8, 9, 10]


def test_character_vocabulary_keeps_case_punctuation_and_line_ends() -> None:
    from studio.core.datasets.text.tokenizer import LINE_END, CharVocabulary, fit_vocabulary, vocabulary_for

    vocab = fit_vocabulary("char", ["Ab, a!", "bb"], 100)
    assert isinstance(vocab, CharVocabulary) and LINE_END in vocab.index
    ids = vocab.encode("Ab,?")
    assert ids[-1] == 1 and "".join(vocab.decode(ids[:-1])) == "Ab,"  # "?" was never seen: <oov>
    assert isinstance(vocabulary_for("char", vocab.tokens), CharVocabulary)
    assert vocabulary_for("word", ["<pad>", "<oov>", "the"]).encode("The cat") == [2, 1]


def _cfg(data: dict, model: dict) -> RunConfig:
    return RunConfig.from_dict({"data": data, "model": model})


def test_the_model_chooses_the_sequence_form_of_a_text_dataset() -> None:
    import torch

    from studio.core.config.data_loading import load_dataset

    cfg = _cfg({"name": "fortunes", "tokenizer": "char"}, {"name": "gpt_lm", "context": 48})
    data = load_dataset(cfg.data, model=cfg.model)
    assert data.meta["task"] == "tokens" and data.input_shape == (48,)
    assert data.x_train.shape == data.y_train.shape and data.x_train.dtype == torch.int64
    full = slice(0, -1)  # the stream's last window ends in padding
    assert (data.x_train[full, 1:] == data.y_train[full, :-1]).all()  # targets: the inputs shifted by one
    assert len(data.classes) < 120 and "e" in data.classes  # characters, not words
    assert 10 < data.meta["unigram_val_perplexity"] < 60
    prefixes = load_dataset(cfg.data, model=_cfg({"name": "fortunes"}, {"name": "lstm_lm"}).model)
    assert prefixes.meta["task"] == "next_word" and prefixes.y_train.dim() == 1  # lstm_lm as before
    words = _cfg({"name": "fortunes"}, {"name": "gpt_lm", "context": 12})
    by_line = load_dataset(words.data, model=words.model)
    assert by_line.meta["tokenizer"] == "word" and (by_line.x_train[:, 0] != 0).all()  # one line per window start


def test_gpt_is_causal_predicts_every_position_and_ties_its_weights() -> None:
    import torch

    from studio.core.models import MODELS
    from studio.core.models.transformer import non_embedding_parameters

    torch.manual_seed(0)
    net = MODELS.build("gpt_lm", input_shape=(16,), num_classes=50, layers=2, heads=2, d_model=16, context=16,
                       dropout=0.0).eval()
    x = torch.randint(2, 50, (3, 16))
    out = net(x)
    assert out.shape == (3, 16, 50)
    changed = x.clone()
    changed[:, 9] = (changed[:, 9] + 1) % 50
    again = net(changed)
    assert torch.allclose(out[:, :9], again[:, :9], atol=1e-5)  # no position sees the future
    assert not torch.allclose(out[:, 9:], again[:, 9:])
    assert net.head.weight is net.embed.weight
    assert net(x[:, :5]).shape == (3, 5, 50)  # shorter inputs (generation) are fine
    untied = MODELS.build("gpt_lm", input_shape=(16,), num_classes=50, d_model=16, heads=2, context=16,
                          tie_weights=False)
    assert sum(p.numel() for p in untied.parameters()) - sum(p.numel() for p in net.parameters()) == 50 * 16
    # Kaplan's N: the same with or without tying (embeddings and a tied head are not counted)
    assert non_embedding_parameters(net) == non_embedding_parameters(untied) - 50 * 16


def test_token_losses_for_landscapes_are_per_token() -> None:
    import torch

    from studio.core.maths.objectives import IGNORE, losses_of, task_for

    task = task_for({"task": "tokens"})
    out = torch.randn(4, 6, 9)
    y = torch.randint(0, 9, (4, 6))
    y[0, 3:] = IGNORE
    fns = losses_of(task)
    assert float(fns["loss_fn"](out, y)) / len(y) == pytest.approx(float(task.loss(out, y)), rel=1e-5)
    total, correct, n = task.sums(out, y).tolist()
    assert fns["correct_fn"] is not None
    assert float(fns["correct_fn"](out, y)) / len(y) == pytest.approx(correct / n)


def test_top_k_keeps_only_the_k_most_likely() -> None:
    import torch

    from studio.engine.tasks.generate import check_request, keep_top_k

    logits = torch.tensor([0.5, 3.0, -1.0, 2.0])
    assert torch.isinf(keep_top_k(logits, 2)).tolist() == [True, False, True, False]
    assert torch.equal(keep_top_k(logits, 0), logits) and torch.equal(keep_top_k(logits, 9), logits)
    with pytest.raises(ConfigError, match="--top-k"):
        check_request(5, 1.0, -1)


def test_continue_text_with_a_transformer_reads_the_last_context_tokens() -> None:
    import torch

    from studio.core.datasets.text.tokenizer import CharVocabulary
    from studio.core.models import MODELS
    from studio.engine.tasks.generate import continue_text

    torch.manual_seed(0)
    vocab = CharVocabulary.fit(["abcab cab"], 10)
    net = MODELS.build("gpt_lm", input_shape=(4,), num_classes=len(vocab), d_model=8, heads=2, context=4).eval()
    gen = torch.Generator().manual_seed(0)
    seed = vocab.encode("abcabc")  # longer than the context: only the last 4 are read
    greedy = continue_text(net, vocab, seed, 12, 4, 0.0, gen, torch.device("cpu"), every_position=True)
    top1 = continue_text(net, vocab, seed, 12, 4, 5.0, gen, torch.device("cpu"), top_k=1, every_position=True)
    assert greedy == top1 and len(greedy) == 12  # top-1 sampling is greedy at any temperature
    assert min(greedy) >= 2  # never padding or <oov>


@pytest.mark.parametrize(("data", "model", "says"), [
    ({"name": "fortunes"}, {"name": "cnn"}, "fortunes is a text dataset: choose a model that reads tokens"),
    ({"name": "fashion_mnist_small"}, {"name": "gpt_lm"}, "gpt_lm reads tokens of a text dataset"),
    ({"name": "fortunes"}, {"name": "gpt_lm", "d_model": 30, "heads": 4}, "heads \\(4\\) must divide d_model"),
    ({"name": "fortunes"}, {"name": "gpt_lm", "context": 40}, "longest line of fortunes has 28"),
    ({"name": "fashion_mnist_small"}, {"name": "vit", "patch": 5}, "patch \\(5\\) must divide the image size "
                                                                    "\\(28×28\\)"),
    ({"name": "fashion_mnist_small"}, {"name": "vit", "d_model": 30, "heads": 4}, "heads \\(4\\) must divide"),
    ({"name": "fortunes"}, {"name": "vit"}, "fortunes is a text dataset"),
])
def test_model_and_data_that_cannot_train_together_are_refused(data: dict, model: dict, says: str) -> None:
    from studio.core.config.data_fit import check_model_data

    with pytest.raises(ConfigError, match=says):
        check_model_data(_cfg(data, model))


def test_a_long_context_is_fine_with_characters() -> None:
    from studio.core.config.data_fit import check_model_data

    check_model_data(_cfg({"name": "fortunes", "tokenizer": "char"}, {"name": "gpt_lm", "context": 256}))
    check_model_data(_cfg({"name": "fortunes"}, {"name": "lstm_lm"}))


def test_summary_reports_the_non_embedding_parameters() -> None:
    from studio.core.estimates.model_summary import summarize_config

    out = summarize_config(_cfg({"name": "fortunes", "tokenizer": "char"},
                                {"name": "gpt_lm", "d_model": 16, "heads": 2, "layers": 1, "context": 32}))
    assert out["output_shape"][0] == 32 and out["input_shape"] == [32]
    per_block = 4 * 16 * 16 + 4 * 16 + 2 * 4 * 16 * 16 + 4 * 16 + 16 + 4 * 16  # attention, MLP, two LayerNorms
    assert out["n_params_non_embedding"] == per_block + 2 * 16  # + the final LayerNorm
    assert out["total_params"] - out["n_params_non_embedding"] == (out["output_shape"][1] + 32) * 16
    assert np.isfinite(out["flops_per_sample"])


def test_hessian_vector_products_pass_through_attention() -> None:
    """Sharpness needs second derivatives, which the fused attention kernels lack: H·v matches finite
    differences of the gradient."""
    import torch

    from studio.core.landscape.curvature import LossFunction
    from studio.core.maths.objectives import IGNORE, token_cross_entropy_sum
    from studio.core.models import MODELS

    torch.manual_seed(0)
    net = MODELS.build("gpt_lm", input_shape=(8,), num_classes=12, d_model=8, heads=2, layers=1, context=8)
    params = {n: p.detach() for n, p in net.named_parameters()}
    x, y = torch.randint(2, 12, (6, 8)), torch.randint(2, 12, (6, 8))
    y[0, 4:] = IGNORE
    f = LossFunction(net, params, x, y, token_cross_entropy_sum)
    v = {n: torch.randn_like(p) for n, p in params.items()}
    hv = f.hvp(v)
    eps = 1e-3
    plus = f.value_and_grad({n: p + eps * v[n] for n, p in params.items()})[1]
    minus = f.value_and_grad({n: p - eps * v[n] for n, p in params.items()})[1]
    fd = torch.cat([((plus[n] - minus[n]) / (2 * eps)).flatten() for n in params])
    exact = torch.cat([hv[n].flatten() for n in params])
    assert torch.isfinite(exact).all()
    assert float((exact - fd).norm() / fd.norm()) < 0.05
