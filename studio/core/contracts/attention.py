"""The Attention view's contract (``engine/tasks/attention.py``): which run, which input, which steps; and the
maps that come back. Torch-free: arrays are numpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypedDict

import numpy as np

from studio.core.errors import ConfigError

MAX_TEXT: Final = 2000  # characters of typed input
EMBEDDING_WORDS: Final = 40  # the most frequent words shown beside the input's in the embedding plot


@dataclass(frozen=True)
class AttentionRequest:
    """The attention of the run in ``run_dir`` on one input: ``text`` (typed, tokenised with the run's
    vocabulary), ``image`` (an index into the test split) or ``probe`` (one of the validation inputs whose maps
    every snapshot keeps; the default, probe 0). ``step``: one snapshot step; None: every snapshot, for the
    slider."""

    run_dir: str
    text: str | None = None
    image: int | None = None
    probe: int | None = None
    step: int | None = None
    device: str = "cpu"

    def validate(self) -> AttentionRequest:
        given = [n for n, v in (("text", self.text), ("image", self.image), ("probe", self.probe)) if v is not None]
        if len(given) > 1:
            raise ConfigError(f"give one input, not {' and '.join(given)}")
        if self.text is not None and not self.text.strip():
            raise ConfigError("type some text to see its attention")
        if self.text is not None and len(self.text) > MAX_TEXT:
            raise ConfigError(f"the text is {len(self.text)} characters; at most {MAX_TEXT} are read")
        for name in ("image", "probe", "step"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ConfigError(f"the {name} must be a whole number from 0; got {value!r}")
        return self


class AttentionFrame(TypedDict):
    """The maps at one snapshot step. ``maps`` (layers, heads, T, T): row i is where token i looks, each row
    sums to 1. ``rollout`` (T, T): attention rollout through every layer. For images ``patch_maps`` (layers,
    heads, rows, cols): what the head reads ([CLS]'s row, or the mean over tokens with mean pooling) over the
    patches, and ``patch_rollout`` (rows, cols) the same through rollout. ``embedding`` (N, 2): the embedding
    points projected on their two principal components."""

    step: int
    maps: np.ndarray
    rollout: np.ndarray
    patch_maps: np.ndarray | None
    patch_rollout: np.ndarray | None
    embedding: np.ndarray
    variance: list[float]  # share of the variance on each of the two axes


class AttentionResult(TypedDict):
    run_id: str
    model: str
    kind: str  # "text" or "image"
    input: str  # what was shown: the text, "test image 12 (Sneaker)", "validation probe 0 …"
    tokens: list[str]  # a label per token (the axes of the maps)
    oov: list[str]  # typed words not in the vocabulary (shown as <oov>)
    causal: bool
    grid: list[int] | None  # patches down and across (images)
    image: np.ndarray | None  # the input image, (H, W) or (H, W, 3) uint8
    embedding_labels: list[str]  # a label per embedding point
    embedding_input: list[bool]  # True for the input's own tokens
    steps: list[int]  # every step the run has attention for
    frames: list[AttentionFrame]  # the steps asked for, in order
    precomputed: bool  # the maps came from the snapshots (a probe), no model run
    seconds: float
