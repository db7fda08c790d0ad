"""Generate text with a trained next-word run: from a seed text, one word at a time.

The run's model, vocabulary (its dataset's ``classes``) and context length come from the run itself
(``engine/tasks/evaluation.py:load_run``, the trainer's builders). Each step feeds the last ``max_len`` words,
pre-padded, and picks the next word: the most likely one when the temperature is 0 (greedy), else a
sample from softmax(logits / T), computed safely for any T > 0 (a tiny T is the greedy limit, never NaN).
Padding and ``<oov>`` are never picked, so every word is in the vocabulary.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import torch

from studio.core.contracts.generate import MAX_WORDS, GenerateRequest, GenerateResult
from studio.core.errors import ConfigError
from studio.core.text.sequences import pad_left
from studio.core.text.tokenizer import OOV, PAD, Vocabulary, words


def check_request(n_words: int, temperature: float) -> None:
    if not 1 <= n_words <= MAX_WORDS:
        raise ConfigError(f"--words must be between 1 and {MAX_WORDS}; got {n_words}")
    if not 0 <= temperature <= 100 or temperature != temperature:
        raise ConfigError(f"the temperature must be between 0 (greedy) and 100; got {temperature}")


def tempered(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """softmax(logits / T), safe for every T > 0: the largest logit is subtracted first, so the exponent is
    never above 0 and a tiny T (1e-300, a subnormal) gives its limit, the greedy choice (ties share it),
    instead of inf/inf = nan."""
    shifted = logits - logits.max()
    scaled = torch.where(shifted == 0, torch.zeros_like(shifted), shifted / temperature)  # 0/T: no 0·inf
    return torch.softmax(scaled, 0)


@torch.inference_mode()
def continue_text(model: torch.nn.Module, vocab: Vocabulary, seed_ids: list[int], n_words: int, max_len: int,
                  temperature: float, generator: torch.Generator, device: torch.device) -> list[int]:
    """``n_words`` word indices that follow ``seed_ids`` (never PAD or OOV)."""
    ids, out = list(seed_ids), []
    for _ in range(n_words):
        x = torch.tensor([pad_left(ids, max_len)], dtype=torch.int64, device=device)
        logits = model(x)[0].float().cpu()
        logits[vocab.index[PAD]] = logits[vocab.index[OOV]] = -torch.inf
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            nxt = int(torch.multinomial(tempered(logits, temperature), 1, generator=generator))
        ids.append(nxt)
        out.append(nxt)
    return out


def generate(run_dir: str | Path, seed_text: str, n_words: int = 8, temperature: float = 0.0,
             sample_seed: int | None = None, checkpoint: str | None = None, device: str = "cpu") -> GenerateResult:
    """Continue ``seed_text`` by ``n_words`` words with the run in ``run_dir``: a JSON-able result
    (run_id, checkpoint, seed, words, text, temperature, oov_in_seed, seconds)."""
    from studio.engine.tasks.evaluation import load_run

    check_request(n_words, temperature)
    started = time.perf_counter()
    data, ref = load_run(run_dir, checkpoint, device)
    if data.classes[:2] != [PAD, OOV] or len(data.input_shape) != 1:
        raise ConfigError(f"run {data.run_id} is not a next-word run (train lstm_lm or gru_lm on a text dataset)")
    vocab = Vocabulary(data.classes)
    seed_ids = vocab.encode(seed_text)
    generator = torch.Generator().manual_seed(sample_seed if sample_seed is not None else
                                              int(time.time_ns() % 2**31))
    picked = continue_text(data.model, vocab, seed_ids, n_words, data.input_shape[0], temperature, generator,
                           data.device)
    new = vocab.decode(picked)
    seed_words = words(seed_text)
    return {
        "run_id": data.run_id, "checkpoint": ref.label,
        "seed": seed_text, "words": new, "text": " ".join(seed_words + new), "temperature": temperature,
        "oov_in_seed": [w for w in seed_words if w not in vocab.index], "vocab_size": len(vocab),
        "seconds": round(time.perf_counter() - started, 3),
    }


def run(request: GenerateRequest, progress: Any) -> GenerateResult:
    """The background task (``engine/tasks.GENERATE``)."""
    progress.stage("loading the run and its vocabulary")
    result = generate(request.run_dir, request.seed_text, request.n_words, request.temperature,
                      request.sample_seed, request.checkpoint, request.device)
    progress.check()
    return result
