"""Backbones from the libraries practitioners use: a timm model and a Hugging Face ``transformers`` model (both
optional extras: ``pip install 'studio[timm]'``, ``'studio[hf]'``). Workers only: imports torch.

Pretrained weights come from each library's own cache (timm's, the Hugging Face hub cache); Studio itself never
downloads. An ``hf`` model reads Studio's token ids (its vocabulary must fit the model's embedding) and says so in
``tokens_note``, which the run's log repeats.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import torch
from torch import nn

from studio.core.errors import ConfigError

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json")


def _need(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"the {extra} models need the {module} package: pip install 'studio[{extra}]'") from None


# --- timm --------------------------------------------------------------------------------------------------
def timm_names(pattern: str = "*", pretrained: bool = False) -> list[str]:
    """timm's architectures matching a shell pattern (``studio list models --timm '*resnet*'``)."""
    return list(_need("timm", "timm").list_models(pattern or "*", pretrained=pretrained))


def check_timm_arch(arch: str) -> None:
    """ConfigError naming close timm architectures when ``arch`` is not one."""
    names = timm_names()
    if arch not in names:
        close = difflib.get_close_matches(arch, names, n=4, cutoff=0.6)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise ConfigError(f"timm has no model {arch!r}{hint} (studio list models --timm '*{arch[:6]}*' lists them)")


def build_timm(input_shape: tuple[int, ...], num_classes: int, arch: str = "resnet18", pretrained: bool = False,
               in_chans: int = 0, **_: Any) -> nn.Module:
    """``timm.create_model`` with the dataset's channels and classes (unless the config sets them)."""
    timm = _need("timm", "timm")
    check_timm_arch(arch)
    if len(input_shape) != 3:
        raise ConfigError(f"timm models read images (channels × height × width); this dataset's inputs are "
                          f"{'×'.join(map(str, input_shape))}")
    try:
        return timm.create_model(arch, pretrained=pretrained, in_chans=in_chans or input_shape[0],
                                 num_classes=num_classes)
    except (OSError, RuntimeError) as err:
        if pretrained:
            raise ConfigError(f"timm could not load the pretrained weights of {arch} ({str(err).splitlines()[0]}); "
                              "put them in timm's cache while online, or set model.pretrained=false") from None
        raise ConfigError(f"timm could not build {arch}: {str(err).splitlines()[0]}") from None


# --- Hugging Face transformers -------------------------------------------------------------------------------
def hf_folder(path: str) -> Path:
    """The local folder of an ``hf`` model: ``path`` itself, or a hub id's snapshot in the local cache."""
    if not path:
        raise ConfigError("model.path is empty: give a folder with a Hugging Face config.json, or a hub id in the "
                          "local cache")
    folder = Path(path).expanduser()
    if folder.is_dir():
        if not (folder / "config.json").is_file():
            raise ConfigError(f"{folder} is not a Hugging Face model folder: it has no config.json")
        return folder
    if folder.exists() or "/" in path and Path(path).is_absolute():
        raise ConfigError(f"no Hugging Face model folder at {path}")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(path, local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached (or no huggingface_hub): one sentence
        raise ConfigError(f"no Hugging Face model {path!r}: it is not a folder here and not in the local hub cache "
                          f"(download it first, e.g. hf download {path}, or give a folder)") from None


class HFModel(nn.Module):
    """A transformers model that reads Studio's token ids (0 = padding) and returns logits; ``attention_maps``
    gives its attention (eager attention, so the weights exist)."""

    def __init__(self, model: nn.Module, classes: int, causal: bool, note: str, pad_id: int = 0) -> None:
        super().__init__()
        self.model, self.classes, self.causal, self.tokens_note = model, classes, causal, note
        self.pad_id = pad_id

    def _inputs(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        x = x.long()
        return {"input_ids": x} if self.causal else {"input_ids": x, "attention_mask": (x != self.pad_id).long()}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.model(**self._inputs(x)).logits
        return logits[..., :self.classes] if self.causal else logits

    def attention_maps(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Each layer's attention weights (batch, heads, tokens, tokens)."""
        return list(self.model(**self._inputs(x), output_attentions=True).attentions)


def build_hf(input_shape: tuple[int, ...], num_classes: int, path: str = "", context: int = 32,
             vocab_size: int | None = None, pad_id: int = 0, tokens: str = "", **_: Any) -> nn.Module:
    """AutoModelForSequenceClassification on labelled text (``vocab_size``: the dataset's vocabulary), else
    AutoModelForCausalLM on a corpus's token windows (its classes are the vocabulary). ``tokens``: the folder's
    tokenizer made the ids (core/datasets/hf_text.py; ``pad_id`` its padding), else Studio's vocabulary."""
    transformers = _need("transformers", "hf")
    folder = hf_folder(path)
    try:
        config = transformers.AutoConfig.from_pretrained(folder)
    except (OSError, ValueError) as err:
        raise ConfigError(f"cannot read the Hugging Face config in {folder}: {str(err).splitlines()[0]}") from None
    causal = vocab_size is None
    words = num_classes if causal else int(vocab_size or 0)
    embedding = int(getattr(config, "vocab_size", 0) or 0)
    if embedding and words > embedding:
        raise ConfigError(f"the model in {folder.name} embeds {embedding} tokens but the dataset's vocabulary has "
                          f"{words}: set data.vocab_size to {embedding} or less")
    positions = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    if positions and input_shape and input_shape[-1] > int(positions):
        raise ConfigError(f"the model in {folder.name} reads at most {positions} tokens; the dataset's rows have "
                          f"{input_shape[-1]} (lower data.max_len or model.context)")
    config.pad_token_id = pad_id
    auto = transformers.AutoModelForCausalLM if causal else transformers.AutoModelForSequenceClassification
    if not causal:
        config.num_labels = num_classes
    has_weights = any((folder / name).is_file() for name in WEIGHT_FILES)
    if has_weights:
        model = auto.from_pretrained(folder, config=config, attn_implementation="eager",
                                     **({} if causal else {"ignore_mismatched_sizes": True}))
    else:
        model = auto.from_config(config, attn_implementation="eager")
    start = "its weights" if has_weights else "random weights of its config (the folder has no weights)"
    source = tokens or "Studio's vocabulary (the folder has no tokenizer)"
    note = (f"{folder.name}: {auto.__name__} from {start}; tokens: {source}, {words} of them, into the model's "
            f"embedding of {embedding or '?'}")
    return HFModel(model, num_classes, causal, note, pad_id)
