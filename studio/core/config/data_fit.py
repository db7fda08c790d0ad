"""Model and data that cannot train together, refused in one sentence before any process starts (torch-free):
a text dataset with a model that does not read tokens or the reverse, attention heads that do not divide
``d_model``, a word-level ``context`` longer than every line (each line is a sample, so no window would fill), a
``vit`` patch that does not tile the dataset's images (where the image size is known without loading it)."""

from __future__ import annotations

from functools import lru_cache

from studio.core.config import RunConfig
from studio.core.errors import ConfigError


def check_model_data(cfg: RunConfig) -> None:
    """Raise ``ConfigError`` when ``cfg``'s model cannot train on its dataset."""
    from studio.core.config.code_check import check_code
    from studio.core.datasets import DATASETS
    from studio.core.models import MODELS
    from studio.core.models.catalog import sequence_context
    from studio.core.models.shape_rules import check_heads, check_patch

    check_code(cfg)  # the user's own files, timm and Hugging Face models (core/config/code_check.py)
    model, data = cfg.model, cfg.data
    model_tags, data_tags = MODELS.get(model.name).tags, DATASETS.get(data.name).tags
    text_models = ", ".join(e.name for e in MODELS if "text" in e.tags)
    if "text" in data_tags and "text" not in model_tags:
        raise ConfigError(f"{data.name} is a text dataset: choose a model that reads tokens ({text_models}), "
                          f"not {model.name}")
    if "text" in model_tags and "text" not in data_tags:
        texts = ", ".join(e.name for e in DATASETS if "text" in e.tags)
        raise ConfigError(f"{model.name} reads tokens of a text dataset ({texts}); {data.name} is not one")
    if "heads" in model.params and "d_model" in model.params:
        check_heads(int(model.params["d_model"]), int(model.params["heads"]))
    shape = image_shape(data.name) if "patch" in model.params or model.name == "vit" else None
    if shape is not None:
        check_patch(shape, int(model.params.get("patch", MODELS.get(model.name).param("patch").default)))
    context = sequence_context(model.name, model.params)
    if context and data.params.get("tokenizer", "word") == "word" and "labelled" not in data_tags:
        longest = longest_line(data.name)
        if context >= longest:
            raise ConfigError(f"model.context ({context}) needs lines of more than {context} words, and the longest "
                              f"line of {data.name} has {longest} (at most {longest - 1} predictions): set "
                              f"model.context ≤ {max(longest - 1, 1)}, or data.tokenizer = char (one stream of "
                              "characters)")


@lru_cache(maxsize=8)
def _longest(name: str, stamp: object) -> int:
    from studio.core.datasets.text.store import corpus_lines
    from studio.core.datasets.text.tokenizer import words

    return max((len(words(s)) for s in corpus_lines(name)), default=0)


def longest_line(name: str) -> int:
    """Words in the longest line of the text corpus ``name``."""
    from studio.core.datasets.cache import entries

    stamp = next((m.get("created", m.get("num_samples")) for m in entries() if m.get("name") == name), None)
    return _longest(name, stamp)


def image_shape(name: str) -> tuple[int, int, int] | None:
    """(channels, height, width) of an image dataset's samples when known without loading it (the bundled subset,
    torchvision's known datasets, an imported folder's manifest); None otherwise (the model's builder checks)."""
    from studio.core.datasets.cache import entries
    from studio.core.datasets.known import KNOWN

    if name == "fashion_mnist_small":
        return (1, 28, 28)
    if name in KNOWN:
        return KNOWN[name].shape
    manifest = next((m for m in entries() if m.get("name") == name), None)
    shape = (manifest or {}).get("shape")
    return (int(shape[0]), int(shape[1]), int(shape[2])) if isinstance(shape, list) and len(shape) == 3 else None
