"""Generate text with a trained next-word run: from a seed text, one token (word or character) at a time.

The run's model, vocabulary (its dataset's ``classes``, words or characters as its ``data.tokenizer`` says) and
context length come from the run itself (``engine/tasks/evaluation.py:load_run``, the trainer's builders). Each
step feeds the last ``max_len`` tokens, pre-padded, to a model that reads prefixes (lstm_lm, gru_lm: outputs
(1, V)), or the last ``context`` tokens unpadded to one that predicts at every position (gpt_lm: outputs
(1, T, V), the last position's logits are the next token's), and picks the next token: the most likely one when
the temperature is 0 (greedy), else a sample from softmax(logits / T) over the ``top_k`` most likely tokens
(0: all), computed safely for any T > 0 (a tiny T is the greedy limit, never NaN). Padding and ``<oov>`` are
never picked, so every token is in the vocabulary. Characters are joined without spaces.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import torch

from studio.core.contracts.generate import (
    MAX_TOP_K,
    MAX_WORDS,
    GenerateRequest,
    GenerateResult,
    is_blank,
    undertrained,
)
from studio.core.datasets.text.sequences import pad_left
from studio.core.datasets.text.tokenizer import LINE_END, OOV, PAD, Vocabulary, vocabulary_for
from studio.core.errors import ConfigError
from studio.core.models import MODELS
from studio.core.models.catalog import GENERATES
from studio.core.runs.record import read_record


def check_request(n_words: int, temperature: float, top_k: int = 0) -> None:
    if not 1 <= n_words <= MAX_WORDS:
        raise ConfigError(f"--words must be between 1 and {MAX_WORDS}; got {n_words}")
    if not 0 <= temperature <= 100 or temperature != temperature:
        raise ConfigError(f"the temperature must be between 0 (greedy) and 100; got {temperature}")
    if not 0 <= top_k <= MAX_TOP_K:
        raise ConfigError(f"--top-k must be between 0 (every token) and {MAX_TOP_K}; got {top_k}")


def keep_top_k(logits: torch.Tensor, k: int) -> torch.Tensor:
    """``logits`` with all but the ``k`` largest set to −inf (k = 0, or k ≥ V: unchanged; Fan et al. 2018)."""
    if k <= 0 or k >= logits.numel():
        return logits
    kth = torch.topk(logits, k).values[-1]
    return logits.masked_fill(logits < kth, -torch.inf)


def tempered(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """softmax(logits / T), safe for every T > 0: the largest logit is subtracted first, so the exponent is
    never above 0 and a tiny T (1e-300, a subnormal) gives its limit, the greedy choice (ties share it),
    instead of inf/inf = nan."""
    shifted = logits - logits.max()
    scaled = torch.where(shifted == 0, torch.zeros_like(shifted), shifted / temperature)  # 0/T: no 0·inf
    return torch.softmax(scaled, 0)


@torch.inference_mode()
def continue_text(model: torch.nn.Module, vocab: Vocabulary, seed_ids: list[int], n_words: int, max_len: int,
                  temperature: float, generator: torch.Generator, device: torch.device, top_k: int = 0,
                  every_position: bool = False) -> list[int]:
    """``n_words`` token indices that follow ``seed_ids`` (never PAD or OOV). ``every_position``: the model
    predicts at every position (gpt_lm) and reads the last ``max_len`` tokens as they are, unpadded."""
    ids, out = list(seed_ids), []
    for _ in range(n_words):
        window = ids[-max_len:] if every_position else pad_left(ids, max_len)
        x = torch.tensor([window], dtype=torch.int64, device=device)
        logits = model(x)[0].float().cpu()
        if every_position:
            logits = logits[-1]
        logits[vocab.index[PAD]] = logits[vocab.index[OOV]] = -torch.inf
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            probs = tempered(keep_top_k(logits, top_k), temperature)
            nxt = int(torch.multinomial(probs, 1, generator=generator))
        ids.append(nxt)
        out.append(nxt)
    return out


def generate(run_dir: str | Path, seed_text: str, n_words: int = 8, temperature: float = 0.0,
             sample_seed: int | None = None, checkpoint: str | None = None, device: str = "cpu",
             top_k: int = 0) -> GenerateResult:
    """Continue ``seed_text`` by ``n_words`` tokens with the run in ``run_dir``: a JSON-able result
    (run_id, checkpoint, seed, words, text, temperature, top_k, tokenizer, oov_in_seed, vocab_size, seconds)."""
    from studio.engine.tasks.evaluation import load_run

    check_request(n_words, temperature, top_k)
    started = time.perf_counter()
    data, ref = load_run(run_dir, checkpoint, device)
    model = data.config.model.name
    if model in MODELS and GENERATES not in MODELS.get(model).tags and "text" in MODELS.get(model).tags:
        raise ConfigError(f"run {data.run_id} is a {model} run, which fills in masked words from both sides rather "
                          "than writing the next one, so it cannot continue a text; generate with a next-word run "
                          "(lstm_lm, gru_lm or gpt_lm)")
    if data.classes[:2] != [PAD, OOV] or len(data.input_shape) != 1:
        raise ConfigError(f"run {data.run_id} is not a next-word run (train lstm_lm, gru_lm or gpt_lm on a text "
                          "dataset)")
    tokenizer = str(data.config.data.params.get("tokenizer", "word"))
    vocab = vocabulary_for(tokenizer, data.classes)
    every_position = data.task_name == "tokens"
    seed_ids = vocab.encode(seed_text)
    if every_position and not seed_ids:  # a Transformer needs one real token to start from
        if tokenizer != "char" or LINE_END not in vocab.index:
            raise ConfigError("give gpt_lm a seed of at least one word to continue")
        seed_ids = [vocab.index[LINE_END]]  # a character stream: start a new line
    generator = torch.Generator().manual_seed(sample_seed if sample_seed is not None else
                                              int(time.time_ns() % 2**31))
    picked = continue_text(data.model, vocab, seed_ids, n_words, data.input_shape[0], temperature, generator,
                           data.device, top_k, every_position)
    new = vocab.decode(picked)
    seed_tokens = vocab.split(seed_text)
    text = seed_text + "".join(new) if tokenizer == "char" else " ".join(seed_tokens + new)
    return {
        "run_id": data.run_id, "checkpoint": ref.label,
        "seed": seed_text, "words": new, "text": text, "temperature": temperature, "top_k": top_k,
        "tokenizer": tokenizer, "oov_in_seed": [w for w in seed_tokens if w not in vocab.index],
        "vocab_size": len(vocab), "seconds": round(time.perf_counter() - started, 3), "blank": is_blank(new),
        "undertrained": undertrained(read_record(Path(run_dir)).get("summary", {}).get("val_perplexity"),
                                     data.meta.get("unigram_val_perplexity")) if ref.is_final else None,
    }


def run(request: GenerateRequest, progress: Any) -> GenerateResult:
    """The background task (``engine/tasks.GENERATE``)."""
    progress.stage("loading the run and its vocabulary")
    result = generate(request.run_dir, request.seed_text, request.n_words, request.temperature,
                      request.sample_seed, request.checkpoint, request.device, request.top_k)
    progress.check()
    return result
