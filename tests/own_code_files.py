"""What the tests of "your own model and data" write to disk: a user's model file, a user's dataset file (small
random images, so nothing is downloaded) and a tiny Hugging Face model folder.

No network here: the Hugging Face model is a tiny random ``AutoConfig`` saved to disk (no weights: Studio starts
it from random weights of its config), and timm models are built with ``pretrained = false``. A user online gets
pretrained weights from each library's own cache and downloads.
"""

from __future__ import annotations

from pathlib import Path

MODEL_FILE = '''"""A user's models: an MLP as the catalog writes it, and a small CNN."""
import math

import torch
from torch import nn


class MLP(nn.Module):
    """Fully connected layers with ReLU."""

    def __init__(self, input_shape: tuple, num_classes: int, width: int = 64, depth: int = 1):
        super().__init__()
        layers, size = [], math.prod(input_shape)
        for _ in range(depth):
            layers += [nn.Linear(size, width), nn.ReLU()]
            size = width
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(size, num_classes)

    def forward(self, x):
        return self.head(self.body(x.flatten(1)))


def small_cnn(in_channels: int, num_classes: int, filters: int = 8):
    """Two convolutions and a linear head."""
    return nn.Sequential(nn.Conv2d(in_channels, filters, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(filters, filters, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(filters, num_classes))
'''

DATA_FILE = '''"""A user's dataset: seeded random 3×16×16 images whose class is the brightest quarter."""
import torch
from torch.utils.data import Dataset


class Quarters(Dataset):
    classes = ["top-left", "top-right", "bottom-left", "bottom-right"]

    def __init__(self, split: str = "train", n: int = 256, jitter: float = 0.0):
        g = torch.Generator().manual_seed({"train": 0, "val": 1, "test": 2}[split])
        self.y = torch.randint(0, 4, (n,), generator=g)
        x = torch.rand(n, 3, 16, 16, generator=g) * 0.5
        for i, c in enumerate(self.y.tolist()):
            r, k = divmod(c, 2)
            x[i, :, r * 8:(r + 1) * 8, k * 8:(k + 1) * 8] += 0.5
        self.x, self.jitter = x, jitter

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.jitter:
            x = x + self.jitter * torch.randn_like(x)  # a random transform: seeded per batch by Studio
        return x, int(self.y[i])


class NotPairs(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return {"x": torch.zeros(2), "y": 0}
'''


def write_user_files(folder: Path) -> tuple[Path, Path]:
    """(model file, dataset file) written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    model, data = folder / "my_models.py", folder / "my_data.py"
    model.write_text(MODEL_FILE, encoding="utf-8")
    data.write_text(DATA_FILE, encoding="utf-8")
    return model, data


def write_tiny_hf(folder: Path, kind: str = "bert", vocab: int = 400) -> Path:
    """A tiny random transformers model's config.json in ``folder`` (no weights: random initial weights)."""
    from transformers import AutoConfig

    if kind == "bert":
        config = AutoConfig.for_model("bert", vocab_size=vocab, hidden_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)
    else:
        config = AutoConfig.for_model("gpt2", vocab_size=vocab, n_embd=32, n_layer=2, n_head=2, n_positions=64,
                                      bos_token_id=1, eos_token_id=1)
    config.save_pretrained(folder)
    return folder


def write_tokenizer(folder: Path, size: int = 300) -> Path:
    """A word-level tokenizer of the bundled labelled fortunes' most common words, saved into ``folder`` (made
    here with the ``tokenizers`` package: nothing is downloaded)."""
    from collections import Counter

    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from studio.core.datasets.text.labelled import labelled_lines

    counts = Counter(w for line in labelled_lines("fortune_sources").lines for w in line.lower().split())
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + [w for w, _ in counts.most_common(size - 4)]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]")
    fast.save_pretrained(folder)
    return folder


def user_model(model: Path, data: Path, cls: str = "MLP", **args: object) -> list[str]:
    """``--set`` overrides for a user-file model on the user's dataset."""
    out = ["model.name=python", f"model.path={model}", f"model.class={cls}", "data.name=python",
           f"data.path={data}", "data.class=Quarters"]
    return out + [f"model.args.{k}={v}" for k, v in args.items()]


def timm_model(data: Path, arch: str = "test_resnet") -> list[str]:
    return ["model.name=timm", f"model.arch={arch}", "model.pretrained=false", "data.name=python",
            f"data.path={data}", "data.class=Quarters"]


def hf_model(folder: Path) -> list[str]:
    return ["model.name=hf", f"model.path={folder}", "data.name=fortune_sources", "data.vocab_size=400",
            "data.max_len=16"]
