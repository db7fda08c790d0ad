"""``bert_mlm`` and ``bert_classifier``: a BERT-style encoder (Devlin et al. 2019), pretrained with the masked-LM
objective, then fine-tuned to classify from its final [CLS] vector.

Token ids (B, T), [CLS] first, 0 = padding → token + learned position embeddings → dropout → ``layers`` pre-LN
bidirectional blocks (core/models/transformer.py) with the padding masked out of attention. ``bert_mlm``'s head
(dense, GELU, LayerNorm, then the token embedding matrix transposed: tied) gives (B, T, V) logits. The classifier
reads the final [CLS] vector through dropout and one linear layer (no tanh pooler: BERT pretrains that one with
next-sentence prediction, which Studio does not train). ``init_from`` loads a finished bert_mlm run's encoder;
like ``transfer``, the encoder may stay frozen for ``frozen_epochs`` (TwoStageFineTune) and learns at the learning
rate × ``base_lr_factor``.
"""

from __future__ import annotations

import torch
from torch import nn

from studio.core.models.transformer import Stack, check_heads


def _init(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, 0.0, 0.02, -0.04, 0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        nn.init.trunc_normal_(module.weight, 0.0, 0.02, -0.04, 0.04)


class BertEncoder(nn.Module):
    def __init__(self, vocab: int, context: int, d_model: int, layers: int, heads: int, dropout: float) -> None:
        super().__init__()
        check_heads(d_model, heads)
        self.context = context
        self.embed = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(context, d_model)
        self.drop = nn.Dropout(dropout)
        self.stack = Stack(d_model, layers, heads, dropout, causal=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.long()
        t = x.shape[1]
        if t > self.context:
            raise ValueError(f"a BERT encoder reads at most {self.context} tokens; got {t}")
        h = self.drop(self.embed(x) + self.position(torch.arange(t, device=x.device)))
        return self.stack(h, pad=x == 0)


class BertMLM(nn.Module):
    """The encoder and the masked-LM head: logits (B, T, V) at every position (the loss counts the chosen)."""

    def __init__(self, vocab: int, context: int, d_model: int, layers: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.encoder = BertEncoder(vocab, context, d_model, layers, heads, dropout)
        self.transform = nn.Sequential(nn.Linear(d_model, d_model), nn.GELU(), nn.LayerNorm(d_model))
        self.bias = nn.Parameter(torch.zeros(vocab))
        self.apply(_init)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.transform(self.encoder(x))
        return h @ self.encoder.embed.weight.t() + self.bias  # tied to the token embeddings


class BertClassifier(nn.Module):
    """The encoder and a linear head on the final [CLS] vector; an optional frozen-encoder first stage."""

    def __init__(self, vocab: int, num_classes: int, context: int, d_model: int, layers: int, heads: int,
                 dropout: float, frozen_epochs: int = 0, base_lr_factor: float = 1.0) -> None:
        super().__init__()
        self.encoder = BertEncoder(vocab, context, d_model, layers, heads, dropout)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(d_model, num_classes)
        self.apply(_init)
        self.frozen_epochs, self.base_lr_factor = frozen_epochs, base_lr_factor
        self.base_frozen = False
        if frozen_epochs > 0:
            self.freeze_base(True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(self.encoder(x)[:, 0]))

    def optimizer_groups(self, lr: float) -> list[dict]:
        """The head at ``lr``, the encoder at ``lr × base_lr_factor`` (as transfer learning does)."""
        return [{"params": list(self.head.parameters())},
                {"params": list(self.encoder.parameters()), "lr": lr * self.base_lr_factor}]

    def freeze_base(self, frozen: bool = True) -> None:
        self.base_frozen = frozen
        for p in self.encoder.parameters():
            p.requires_grad_(not frozen)


def encoder_weights(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The ``encoder.*`` tensors of a bert_mlm checkpoint's model state, without the ``encoder.`` prefix."""
    out = {}
    for key, value in state.items():
        for wrapper in ("module.", "_orig_mod."):
            key = key.removeprefix(wrapper)
        if key.startswith("encoder."):
            out[key.removeprefix("encoder.")] = value
    return out


def load_encoder(net: BertClassifier, path: str, run_id: str) -> None:
    """Copy the encoder of a finished bert_mlm run (its final weights at ``path``) into ``net``; one sentence when
    it cannot."""
    from studio.core.errors import ConfigError

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 - an unpickling error of any kind is several lines: one sentence instead
        raise ConfigError(f"the final weights of pretraining run {run_id} ({path}) cannot be read: the file is "
                          "damaged or not a checkpoint; train that run again or start from another one") from None
    try:
        net.encoder.load_state_dict(encoder_weights(state["model"]))
    except (RuntimeError, KeyError, TypeError, AttributeError) as err:
        raise ConfigError(f"the encoder of pretraining run {run_id} does not fit this bert_classifier (another "
                          f"vocabulary or shape: {str(err).splitlines()[0][:160] if str(err) else err!r})") from None


def _check_input(input_shape: tuple[int, ...]) -> None:
    if len(input_shape) != 1:
        from studio.core.errors import ConfigError

        raise ConfigError(f"a BERT model reads rows of token ids (the masked_lm or a labelled text dataset); this "
                          f"dataset's inputs are {'×'.join(map(str, input_shape))}")


def build_bert_mlm(input_shape: tuple[int, ...], num_classes: int, layers: int = 2, heads: int = 4,
                   d_model: int = 128, context: int = 64, dropout: float = 0.1) -> nn.Module:
    """``num_classes`` is the vocabulary (the masked_lm dataset's classes)."""
    _check_input(input_shape)
    return BertMLM(num_classes, context, d_model, layers, heads, dropout)


def build_bert_classifier(input_shape: tuple[int, ...], num_classes: int, layers: int = 2, heads: int = 4,
                          d_model: int = 128, context: int = 64, dropout: float = 0.1, init_from: str = "",
                          vocab_size: int = 2000, frozen_epochs: int = 0, base_lr_factor: float = 1.0,
                          init_weights: str = "") -> nn.Module:
    """From scratch, or fine-tuning the encoder of the bert_mlm run ``init_from``: its weights are copied in from
    ``init_weights`` (the parent's final checkpoint, which the run's start resolves: ``core/runs/lineage.py``); built
    without them (a resume, an evaluation, a summary) the weights come from the run's own checkpoint instead.
    ``vocab_size``: the embedding's rows; the worker passes the dataset's vocabulary size
    (``catalog.builder_extras``)."""
    _check_input(input_shape)
    if not init_from:
        return BertClassifier(vocab_size, num_classes, context, d_model, layers, heads, dropout)
    net = BertClassifier(vocab_size, num_classes, context, d_model, layers, heads, dropout, frozen_epochs,
                         base_lr_factor)
    if init_weights:
        load_encoder(net, init_weights, init_from)
    return net
