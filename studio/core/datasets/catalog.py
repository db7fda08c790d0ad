"""The dataset registry: what a person can train on. Loaders are imported lazily (no torch here).

Three kinds of entry: the bundled and synthetic datasets; the classic datasets (MNIST … SVHN),
loaded through torchvision into the cache on first use; and datasets a person imported, read
from the cache's manifests. The registry re-reads the cache whenever it changed, so an import
in any process shows up in every other one.
"""

from __future__ import annotations

from studio.core.contracts.registry import Entry, Param, Registry
from studio.core.datasets import cache
from studio.core.datasets.augment_params import AUGMENT_PARAMS
from studio.core.datasets.known import KNOWN
from studio.core.datasets.splits import DEFAULT_TEST, DEFAULT_VAL
from studio.core.datasets.text.store import describe as describe_text

SPLIT_PARAMS = (  # cached datasets (imported and catalog) split by these, not by train.val_fraction
    Param("val_fraction", "float", DEFAULT_VAL, "share held out for validation when the source has no validation "
          "split: of all samples, or of the training part when the source has a test split", 0.0, 0.9),
    Param("test_fraction", "float", DEFAULT_TEST, "share held out for testing when the source has no test split "
          "(the same samples in every run)", 0.0, 0.9),
)

TEXT_PARAMS = (  # text corpora: next-word prediction (core/datasets/text_data.py)
    Param("vocab_size", "int", 1000, "the vocabulary cap: the most frequent words of the training lines, "
          "every other word becomes <oov>", 10, 100_000),
    Param("max_len", "int", 16, "tokens of context: longer prefixes keep their last max_len tokens (lstm_lm, "
          "gru_lm; gpt_lm uses its own context)", 2, 256),
    Param("tokenizer", "choice", "word", "word: lower-case words; char: every character is a token (a small "
          "corpus still gives long sequences)", choices=("word", "char")),
    Param("val_fraction", "float", 0.1, "share of the lines held out for validation", 0.0, 0.5),
    Param("test_fraction", "float", 0.1, "share of the lines held out for testing (the same in every run)",
          0.0, 0.5),
)
TEXT_BUILDER = "studio.core.datasets.text_data:load_text"


class DatasetRegistry(Registry):
    """The registry, refreshed from the cache when the cache changed since it was last read."""

    def __init__(self) -> None:
        super().__init__("dataset")
        self._stamp: tuple | None = None

    def sync(self, force: bool = False) -> None:
        now = cache.stamp()
        if force or now != self._stamp:
            self._stamp = now
            refresh_imported()

    def get(self, name: str) -> Entry:
        if name not in self._entries and name not in self._hidden:
            self.sync(force=True)  # an unknown name may have just been imported
        return super().get(name)

    def __contains__(self, name: object) -> bool:
        self.sync()
        return super().__contains__(name)

    def __iter__(self):
        self.sync()
        return super().__iter__()

    def names(self) -> list[str]:
        self.sync()
        return super().names()


DATASETS = DatasetRegistry()
_IMPORTED: set[str] = set()


def imported_names() -> set[str]:
    """Names of the registered entries that came from the cache."""
    return set(_IMPORTED)


def builtin_names() -> set[str]:
    """Names of the datasets Studio ships or downloads (not imported ones): an import may not take them."""
    return set(DATASETS.names()) - imported_names()


def _describe(m: dict) -> str:
    c, h, w = m["shape"]
    colour = "grey" if c == 1 else "colour"
    return (f"Imported: {m['num_samples']:,} {colour} {h}×{w} images, {m['num_classes']} classes "
            f"({m.get('description') or m.get('source', '')})")


def refresh_imported() -> list[str]:
    """(Re)register every imported dataset in the cache; drop entries whose cache folder is gone.
    Returns the imported names now registered."""
    manifests = {m["name"]: m for m in cache.entries() if m.get("kind") in ("imported", "text", "labelled_text")}
    for name in _IMPORTED - set(manifests):
        DATASETS.remove(name)
    _IMPORTED.intersection_update(manifests)
    for name, m in manifests.items():
        if name in DATASETS._entries and name not in _IMPORTED:  # noqa: SLF001 - never shadow a built-in
            continue
        DATASETS.remove(name)
        notes = "; ".join(m.get("notes") or [])
        if m.get("kind") == "labelled_text":
            from studio.core.datasets.text.labelled import describe as describe_labelled

            DATASETS.add(Entry(name, describe_labelled(m), LABELLED_PARAMS, builder=LABELLED_BUILDER,
                               info=f"Imported from {m.get('source', '?')}." + (f" {notes}." if notes else ""),
                               tags=("text", "labelled", "imported")))
            _IMPORTED.add(name)
            continue
        if m.get("kind") == "text":
            DATASETS.add(Entry(name, describe_text(m), TEXT_PARAMS, builder=TEXT_BUILDER,
                               info=f"Imported from {m.get('source', '?')}." + (f" {notes}." if notes else ""),
                               tags=("text", "imported")))
            _IMPORTED.add(name)
            continue
        DATASETS.add(Entry(
            name, _describe(m), SPLIT_PARAMS + AUGMENT_PARAMS,
            builder="studio.core.datasets.imported:load_imported",
            info=f"Imported from {m.get('source', '?')}." + (f" {notes}." if notes else ""),
            tags=("image", "imported"),
        ))
        _IMPORTED.add(name)
    return sorted(_IMPORTED)


DATASETS.add(Entry(
    "fashion_mnist_small",
    "Fashion-MNIST subset bundled with Studio: 10,000 train + 2,000 test grey 28×28 images of clothes, 10 classes",
    AUGMENT_PARAMS,
    builder="studio.core.datasets.bundled:load_fashion_mnist_small",
    info="Xiao, Rasul & Vollgraf 2017, 'Fashion-MNIST'. MIT licence. A fixed, seeded subset; see resources/README.md.",
    tags=("image", "bundled"),
))

DATASETS.add(Entry(
    "fortunes",
    "Short lines of text bundled with Studio: 694 fortunes (fortune-mod, via Debian's fortunes-min), for "
    "next-word prediction with lstm_lm, gru_lm or gpt_lm",
    TEXT_PARAMS,
    builder=TEXT_BUILDER,
    info="Each line becomes its growing prefixes (w1 → w2, w1 w2 → w3, …), pre-padded; a model predicts the next "
         "word, scored by perplexity = exp(cross-entropy). For gpt_lm: windows of its context, every position "
         "predicting the next token; tokenizer = char makes characters the tokens. "
         "BSD licence (fortune-mod); see resources/README.md.",
    tags=("text", "bundled"),
))

for _known in KNOWN.values():
    DATASETS.add(Entry(_known.name, _known.description, SPLIT_PARAMS + AUGMENT_PARAMS,
                       builder="studio.core.datasets.torchvision_catalog:load_catalog",
                       info=_known.info, tags=("image", "catalog")))

_POINTS = (
    Param("n_samples", "int", 1000, "how many training points", 50, 100_000),
    Param("noise", "float", 0.1, "how much the classes blur into each other", 0.0, 2.0),
)
for _name, _desc in (
    ("spiral", "Two interleaved spirals in the plane: needs a curved decision boundary"),
    ("moons", "Two interleaving half circles (scikit-learn's make_moons)"),
    ("circles", "A small circle inside a large one: not linearly separable"),
    ("xor", "Four quadrants labelled like XOR: the classic problem a single neuron cannot solve"),
    ("gaussian", "Two Gaussian blobs: linearly separable when the noise is low"),
):
    DATASETS.add(Entry(_name, _desc, _POINTS, builder="studio.core.datasets.synthetic:load_points",
                       tags=("points", "synthetic")))

DATASETS.add(Entry(
    "noisy_line",
    "A noisy straight line for regression: points (x, y) with y = w_gen·(x + noise) + b_gen",
    (
        Param("n_samples", "int", 200, "how many training points", 10, 1_000_000),
        Param("w_gen", "float", 2.0, "slope of the line that generates the data", -100.0, 100.0),
        Param("b_gen", "float", -1.0, "offset of the line that generates the data", -100.0, 100.0),
        Param("noise", "float", 0.3, "standard deviation of the noise added to x", 0.0, 10.0),
    ),
    builder="studio.core.datasets.noisy_line:load_noisy_line",
    info="x ~ U(−1, 1), ε ~ N(0, noise²), y = w_gen·(x + ε) + b_gen. Fit the linear neuron with mean squared "
         "error and compare the learned w, b with w_gen, b_gen. Inputs are not normalised; 10 % held out for "
         "validation.",
    tags=("regression", "synthetic"),
))

_BERT_SPLIT = (
    Param("val_fraction", "float", 0.1, "share of the lines held out for validation", 0.0, 0.5),
    Param("test_fraction", "float", 0.1, "share of the lines held out for testing (the same in every run)", 0.0, 0.5),
)
LABELLED_PARAMS = (
    Param("vocab_size", "int", 2000, "the vocabulary cap when the dataset fits its own (the most frequent words "
          "of the training lines, then <oov>)", 10, 100_000),
    Param("max_len", "int", 32, "words per line read (longer lines are cut); a row is [CLS] + max_len ids", 2, 4094),
    Param("vocab_from", "str", "", "a bert_mlm run whose vocabulary tokenizes the lines (filled in from "
          "model.init_from); empty: fit one on the training lines"),
    Param("label_fraction", "float", 1.0, "share of the training lines whose labels are used (the same lines in "
          "every run): fewer labels is where pretraining pays", 0.01, 1.0),
    *_BERT_SPLIT,
)
LABELLED_BUILDER = "studio.core.datasets.bert_data:load_labelled_text"

DATASETS.add(Entry(
    "masked_lm",
    "Masked-LM rows for BERT pretraining (bert_mlm) from a text corpus: 15 % of the words to guess",
    (
        Param("corpus", "str", "fortune_sources", "the text: fortunes, fortune_sources (its training lines only, "
              "labels unused) or an imported corpus"),
        Param("vocab_size", "int", 2000, "the vocabulary cap: [CLS], [MASK] and the most frequent words of the "
              "training lines; every other word becomes <oov>", 10, 100_000),
        Param("max_len", "int", 32, "words per line read (longer lines are cut); a row is [CLS] + max_len ids",
              2, 4094),
        Param("copies", "int", 1, "differently masked copies of every training line (static masks, drawn once "
              "from the run's seed); 4 makes an epoch 4× longer", 1, 100),  # 1: the defaults train in ~1.5 min on a
        # busy 2-core CPU (masked accuracy 0.18 after 80 steps); 4 took 5 min for 0.19 (issue 33)
        *_BERT_SPLIT,
    ),
    builder="studio.core.datasets.bert_data:load_masked_lm",
    info="Each line becomes [CLS] w1 … wn; of its words 15 % are chosen, of those 80 % become [MASK], 10 % a "
         "random word, 10 % stay; the targets are the chosen words, every other position is ignored (Devlin et "
         "al. 2019, §3.1). Scored by accuracy and perplexity over the chosen words.",
    tags=("text", "bundled"),
))
DATASETS.add(Entry(
    "fortune_sources",
    "Labelled text bundled with Studio: 2,454 fortunes labelled by the fortune file they came from (computers, "
    "politics, science, work), for bert_classifier",
    LABELLED_PARAMS,
    builder=LABELLED_BUILDER,
    info="Which of Debian's fortune files (fortune-mod, BSD licence) a line came from: a 4-class text "
         "classification task for fine-tuning a pretrained bert_mlm encoder against training from scratch. "
         "See resources/README.md.",
    tags=("text", "labelled", "bundled"),
))

# --- data from code: a user's Dataset, or a Hugging Face datasets folder (docs/user-guide/own-model-and-data.md) --
_LOADER_PARAMS = (
    Param("workers", "int", 2, "DataLoader worker processes that read training batches (0: in the training "
          "process)", 0, 64),
    Param("val_fraction", "float", DEFAULT_VAL, "share of the training set held out for validation when the "
          "data has no validation split", 0.0, 0.9),
    Param("test_fraction", "float", DEFAULT_TEST, "share held out for testing when the data has no test split",
          0.0, 0.9),
)
DATASETS.add(Entry(
    "python",
    "Your own data: a torch.utils.data.Dataset class (or a function returning datasets) from a Python file",
    (
        Param("path", "str", "", "the .py file that defines the dataset (copied into the run folder)"),
        Param("class", "str", "", "the Dataset subclass, or a function returning (train, test) or (train, val, "
              "test)"),
        Param("args", "args", {}, "its keyword arguments: [data.args] root = \"…\"; split (\"train\", \"val\", "
              "\"test\") or train (true/false) are filled in per split"),
        *_LOADER_PARAMS,
    ),
    builder="studio.core.datasets.code_data:load_python",
    info="Items are (input, label) pairs, read through a DataLoader with workers (not held on the device). Classes: "
         "the dataset's classes list, else num_classes, else the largest label + 1.",
    tags=("file", "usercode", "loader"),
))
DATASETS.add(Entry(
    "hf_disk",
    "A Hugging Face datasets folder (saved with save_to_disk) or an image folder (class per sub-folder): images "
    "and labels",
    (
        Param("path", "str", "", "the folder: a dataset saved with datasets' save_to_disk, or an imagefolder"),
        Param("image", "str", "image", "the column holding the inputs (images or numbers)"),
        Param("label", "str", "label", "the column holding the class labels"),
        Param("size", "int", 0, "resize images to size × size (0: keep; they must all be one size)", 0, 4096),
        *_LOADER_PARAMS,
    ),
    builder="studio.core.datasets.hf_data:load_hf_disk",
    info="datasets.load_from_disk(path), or load_dataset('imagefolder', data_dir=path); splits train / validation "
         "/ test when present. Needs pip install 'studio[hf]'.",
    tags=("folder_or_id", "loader", "hf"),
))
