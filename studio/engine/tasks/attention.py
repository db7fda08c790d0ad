"""The attention of a Transformer run on one input, at every attention snapshot (the Attention view's job and
``studio attention``).

The run's model and data come from ``engine/replay.RunData`` (the trainer's own builders). The snapshots
(``engine/callbacks/attention_snapshots.py``) hold the weights at each step, so any input can be replayed: typed
text (tokenised with the run's vocabulary: words, or characters for a character-level vocabulary; unknown ones
read as ``<oov>``), a test image, or one of the validation probes whose maps every snapshot already holds (read,
not recomputed). A run without snapshots shows its final checkpoint. Works for any model with attention layers
(``core/models/transformer.attention_layers``) that takes image tensors or ``(B, T)`` token ids.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.contracts import layout
from studio.core.contracts.attention import EMBEDDING_WORDS, AttentionFrame, AttentionRequest, AttentionResult
from studio.core.contracts.layout import CheckpointRef
from studio.core.datasets.text.bert_text import CLS, MASK
from studio.core.datasets.text.tokenizer import OOV, PAD, words
from studio.core.errors import ConfigError
from studio.core.maths.attention import pca_2d, rollout
from studio.core.models.transformer import attention_layers, attention_of, has_attention


def attention_steps(run_dir: str | Path) -> list[CheckpointRef]:
    """The run's attention snapshots, oldest first; the final checkpoint when it has none."""
    refs = layout.list_attention(run_dir)
    return refs or [layout.final_checkpoint(run_dir)]


def pick_steps(refs: list[CheckpointRef], step: int | None) -> list[CheckpointRef]:
    """All of ``refs``, or the one at ``step``; one sentence listing the steps there are otherwise."""
    if step is None:
        return refs
    chosen = [r for r in refs if r.step == step]
    if not chosen:
        have = ", ".join(str(r.step) for r in refs)
        raise ConfigError(f"the run has no attention snapshot at step {step}; steps: {have}")
    return chosen[-1:]


def is_char_vocabulary(tokens: list[str]) -> bool:
    """A character-level vocabulary: every token after the special ones is one character."""
    rest = [t for t in tokens if not (t.startswith("<") and t.endswith(">") and len(t) > 2)]
    return bool(rest) and all(len(t) == 1 for t in rest)


def encode_text(text: str, vocabulary: list[str]) -> tuple[list[int], list[str], list[str]]:
    """(token ids, a label per token, the words not in the vocabulary) of ``text``: characters for a
    character-level vocabulary, else lower-case words; unknown ones become ``<oov>``. With a BERT vocabulary the
    row starts with [CLS] (as every training row does) and a typed ``[MASK]`` is the mask token."""
    index = {t: i for i, t in enumerate(vocabulary)}
    if is_char_vocabulary(vocabulary):
        pieces = list(text)
    else:  # a BERT vocabulary: [CLS] first as in training, and a typed [MASK] stays one token
        parts = text.split(MASK) if MASK in index else [text]
        pieces = [CLS] if CLS in index else []
        for i, part in enumerate(parts):
            pieces += ([MASK] if i else []) + words(part)
    oov_id = index.get(OOV, 1)
    ids = [index.get(p, oov_id) for p in pieces]
    labels = [p if p in index else OOV for p in pieces]
    return ids, labels, list(dict.fromkeys(p for p in pieces if p not in index))


def token_embedding(model: nn.Module, vocab_size: int) -> nn.Embedding | None:
    """The model's token embedding table: its first ``nn.Embedding`` over the whole vocabulary."""
    return next((m for m in model.modules() if isinstance(m, nn.Embedding) and m.num_embeddings == vocab_size),
                None)


def input_embedding(model: nn.Module) -> nn.Embedding | None:
    """A library model's own token embedding (``get_input_embeddings``: Hugging Face), if it has one."""
    inner = getattr(model, "model", model)
    get = getattr(inner, "get_input_embeddings", None)
    table = get() if callable(get) else None
    return table if isinstance(table, nn.Embedding) else None


class Replay:
    """One run, one input: the maps (and embedding points) at each chosen snapshot."""

    def __init__(self, request: AttentionRequest) -> None:
        from studio.engine.replay import RunData

        request.validate()
        self.request = request
        self.data = RunData(request.run_dir, request.device)
        model = self.data.model
        if not has_attention(model):
            raise ConfigError(f"run {self.data.run_id} ({self.data.config.model.name}) has no attention layers; the "
                              "Attention view shows Transformer runs (vit, gpt_lm, bert_mlm)")
        self.refs = attention_steps(request.run_dir)
        self.chosen = pick_steps(self.refs, request.step)
        self.causal = any(layer.causal for layer in attention_layers(model)) or bool(getattr(model, "causal", False))
        self.grid: tuple[int, int] | None = getattr(model, "grid", None)
        self.cls = getattr(model, "pool", "cls") == "cls"
        self.oov: list[str] = []
        self.image: np.ndarray | None = None
        self.vocabulary = list(self.data.classes) if not self.data.is_image else []
        self.x, self.tokens, self.input = self._input()
        self.embedding_ids: list[int] = []
        if not self.data.is_image:
            ids = [int(i) for i in self.x[0].tolist()]
            common = [i for i in range(2, min(len(self.vocabulary), 2 + EMBEDDING_WORDS)) if i not in ids]
            self.embedding_ids = list(dict.fromkeys(ids)) + common
        self.input_points = (len(set(int(i) for i in self.x[0].tolist())) if not self.data.is_image
                             else len(self.tokens))

    # --- the input ----------------------------------------------------------------------------------------
    def _input(self) -> tuple[torch.Tensor, list[str], str]:
        """The raw input (1, …), a label per token, and its description."""
        r, data = self.request, self.data
        if r.text is not None:
            if data.is_image:
                raise ConfigError(f"run {data.run_id} is an image run; pick a test image (--image INDEX), not text")
            if self.vocabulary[:2] != [PAD, OOV]:
                raise ConfigError(f"run {data.run_id} has no token vocabulary to read typed text with")
            ids, labels, self.oov = encode_text(r.text, self.vocabulary)
            if not ids:
                raise ConfigError("the text holds no words to tokenise")
            context = int(data.input_shape[0]) if data.input_shape else len(ids)
            ids, labels = ids[-context:], labels[-context:]
            return torch.tensor([ids], dtype=torch.int64), labels, r.text
        if r.image is not None:
            if not data.is_image:
                raise ConfigError(f"run {data.run_id} is a text run; type some text (--text), not an image index")
            test = data.split("test")
            if r.image >= len(test):
                raise ConfigError(f"the test split has {len(test)} images; pick an index from 0 to {len(test) - 1}")
            label = data.classes[int(test.y[r.image])] if data.classes else str(int(test.y[r.image]))
            x = test.x[r.image:r.image + 1].cpu()
            return x, self._patch_labels(x), f"test image {r.image} ({label})"
        probe = r.probe or 0
        first = self._load(self.refs[0])
        if "probe_x" not in first:
            raise ConfigError(f"run {data.run_id} kept no attention snapshots; type text or pick an image")
        if probe >= len(first["probe_x"]):
            raise ConfigError(f"the run kept {len(first['probe_x'])} probe inputs; pick one from 0 to "
                              f"{len(first['probe_x']) - 1}")
        x = first["probe_x"][probe:probe + 1]
        if data.is_image:
            return x, self._patch_labels(x), f"validation image {probe}"
        labels = [self.vocabulary[int(i)] if int(i) < len(self.vocabulary) else OOV for i in x[0].tolist()]
        return x, labels, "validation text " + " ".join(t for t in labels if t != PAD)

    def _patch_labels(self, x: torch.Tensor) -> list[str]:
        raw = x[0].numpy()
        self.image = raw[0] if raw.shape[0] == 1 else np.moveaxis(raw, 0, -1)
        rows, cols = self.grid or (0, 0)
        return (["[CLS]"] if self.cls else []) + [f"{r},{c}" for r in range(rows) for c in range(cols)]

    # --- the maps -----------------------------------------------------------------------------------------
    def _load(self, ref: CheckpointRef) -> dict[str, Any]:
        from studio.engine.loop.checkpoints import load_checkpoint

        return load_checkpoint(ref.path)

    @torch.no_grad()
    def _forward(self) -> tuple[list[np.ndarray], np.ndarray]:
        """The maps (one (heads, T, T) per layer) and the embedding vectors of the current weights."""
        model, data = self.data.model, self.data
        entering: list[torch.Tensor] = []
        layers = attention_layers(model)
        hook = layers[0].register_forward_pre_hook(lambda _m, args: entering.append(args[0].detach())) \
            if layers else None
        try:
            x = self.x.to(data.device)
            if data.is_image:
                x = data.split("test").normalise(x)  # the training split's statistics, as in training
            maps = [w[0].float().cpu().numpy() for w in attention_of(model, x)]
        finally:
            if hook is not None:
                hook.remove()
        table = self._vocabulary_table()
        if table is not None:
            vectors = table.weight[self.embedding_ids].float().cpu().numpy()
        elif entering:
            vectors = entering[0][0].float().cpu().numpy()  # the tokens entering the first attention layer
        else:  # a library model read by ids: the embeddings of the input's tokens
            own = input_embedding(model)
            vectors = (own.weight[self.x[0].long().to(own.weight.device)].float().cpu().numpy() if own is not None
                       else np.zeros((0, 2)))
        return maps, vectors

    def _vocabulary_table(self) -> nn.Embedding | None:
        """The embedding whose rows are the run's vocabulary (a library model's own when its classes are the
        vocabulary: a causal LM), or None."""
        if not self.vocabulary:
            return None
        model = self.data.model
        return token_embedding(model, len(self.vocabulary)) or (input_embedding(model) if self.causal else None)

    def frame(self, ref: CheckpointRef) -> AttentionFrame:
        from studio.engine.loop.checkpoints import load_weights_into

        record = self._load(ref)
        maps: list[np.ndarray] | None = None
        vectors = np.zeros((0, 2))
        if "model" in record:
            load_weights_into(self.data.model, record["model"], ref.path)
            maps, vectors = self._forward()
        if self.request.text is None and self.request.image is None and "maps" in record:
            probe = self.request.probe or 0
            maps = [m[probe].float().numpy() for m in record["maps"]]  # precomputed while training
        if maps is None:
            raise ConfigError(f"the snapshot at step {ref.step} holds neither weights nor maps for this input")
        stacked = np.stack(maps).astype(np.float32)
        rolled = rollout(maps)
        points, share = pca_2d(vectors) if len(vectors) else (np.zeros((0, 2)), np.zeros(2))
        frame: AttentionFrame = {"step": ref.step, "maps": stacked, "rollout": rolled.astype(np.float32),
                                 "patch_maps": None, "patch_rollout": None,
                                 "embedding": points.astype(np.float32), "variance": [float(s) for s in share]}
        if self.data.is_image and self.grid is not None:
            rows, cols = self.grid
            start = 1 if self.cls else 0
            reads = stacked[:, :, 0, start:] if self.cls else stacked[:, :, :, start:].mean(axis=2)
            frame["patch_maps"] = reads.reshape(len(maps), -1, rows, cols)
            roll = rolled[0, start:] if self.cls else rolled[:, start:].mean(axis=0)
            frame["patch_rollout"] = (roll / max(float(roll.sum()), 1e-12)).reshape(rows, cols).astype(np.float32)
        return frame

    def result(self, progress: Any = None) -> AttentionResult:
        started = time.perf_counter()
        frames = []
        for i, ref in enumerate(self.chosen):
            frames.append(self.frame(ref))
            if progress:
                progress((i + 1) / len(self.chosen), f"step {ref.step}")
        data = self.data
        labels = ([self.vocabulary[i] for i in self.embedding_ids]
                  if self.embedding_ids and self._vocabulary_table() is not None else list(self.tokens))
        return {
            "run_id": data.run_id, "model": data.config.model.name, "kind": "image" if data.is_image else "text",
            "input": self.input, "tokens": self.tokens, "oov": self.oov, "causal": self.causal,
            "grid": list(self.grid) if self.grid and data.is_image else None, "image": self.image,
            "embedding_labels": labels,
            "embedding_input": [i < self.input_points for i in range(len(labels))],
            "steps": [r.step for r in self.refs], "frames": frames,
            "precomputed": self.request.text is None and self.request.image is None,
            "seconds": round(time.perf_counter() - started, 3),
        }


def compute(request: AttentionRequest, progress: Any = None) -> AttentionResult:
    """The attention of the run on the request's input at its steps (all snapshots when ``step`` is None)."""
    return Replay(request).result(progress)


def run(request: AttentionRequest, progress: Any = None) -> AttentionResult:
    """The background task (``engine/tasks.ATTENTION``)."""
    return compute(request, progress)
