"""Text corpora: reading with bad-input care, the word tokenizer, prefix sequences, the unigram
baseline, `studio data import` of text, and the next-word models."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from studio import cli
from studio.core.datasets.text.reading import MAX_LINE_CHARS, read_corpus
from studio.core.datasets.text.sequences import pad_left, prefix_pairs, unigram_perplexity
from studio.core.datasets.text.tokenizer import OOV, PAD, Vocabulary, words
from studio.core.errors import DataError

LINES = [f"the man number {i} bites the dog" for i in range(12)]


def test_txt_skips_and_counts_empty_undecodable_and_huge_lines(tmp_path):
    raw = "\n".join(LINES).encode() + b"\n\n   \nbad \xff\xfe line\n" + b"w " * MAX_LINE_CHARS + b"\n"
    path = tmp_path / "heads.txt"
    path.write_bytes(b"\xef\xbb\xbf" + raw)
    text = read_corpus(path)
    assert text.lines == LINES  # the byte-order mark is not part of the first line
    assert text.empty == 2 and text.skips.count == 2
    assert "not UTF-8" in text.skips.examples[0] and "characters" in text.skips.examples[1]


@pytest.mark.parametrize(("content", "message"), [
    ("héllo\n".encode("utf-16"), "UTF-16"),
    (bytes(range(256)) * 20, "binary"),
    (b"one line\n\n", "usable lines"),
    ("\n".join(LINES).encode("latin-1") + "\nd\xe9j\xe0 vu\n".encode("latin-1") * 20, "not UTF-8 text"),
], ids=["utf16", "binary", "too-few", "latin1"])
def test_txt_that_is_not_a_corpus_is_refused_in_one_sentence(tmp_path, content, message):
    path = tmp_path / "x.txt"
    path.write_bytes(content)
    with pytest.raises(DataError, match=message):
        read_corpus(path)


def test_csv_text_column_by_name_or_convention(tmp_path):
    path = tmp_path / "news.csv"
    path.write_text("id,headline\n" + "".join(f'{i},"{s}, again"\n' for i, s in enumerate(LINES)) + "99\n")
    text = read_corpus(path)
    assert text.lines == [f"{s}, again" for s in LINES] and text.skips.count == 1  # the short row
    assert read_corpus(path, "id").lines[:2] == ["0", "1"]
    with pytest.raises(DataError, match="no column 'body'"):
        read_corpus(path, "body")
    (tmp_path / "two.csv").write_text("a,b\n" + "x,y\n" * 12)
    with pytest.raises(DataError, match="--text-column"):
        read_corpus(tmp_path / "two.csv")


def test_tokenizer_caps_the_vocabulary_and_maps_the_rest_to_oov():
    assert words("Don't PANIC, the man's dog!") == ["don't", "panic", "the", "man's", "dog"]
    vocab = Vocabulary.fit(["a b c a b a", "d"], size=4)
    assert vocab.tokens == [PAD, OOV, "a", "b"]
    assert vocab.encode("a c b zebra") == [2, 1, 3, 1]
    assert vocab.decode([3, 2]) == ["b", "a"]


def test_prefix_pairs_are_growing_and_pre_padded():
    x, y = prefix_pairs([[5, 6, 7, 8], [9]], length=2)
    assert x.tolist() == [[0, 5], [5, 6], [6, 7]] and y.tolist() == [6, 7, 8]  # a one-word line gives nothing
    assert pad_left([1, 2, 3], 5) == [0, 0, 1, 2, 3]


def test_unigram_perplexity_matches_the_formula():
    train = np.array([2, 2, 3, 3])  # p(2) = p(3) = 1/2 (k = 0.001 is nearly unsmoothed)
    assert unigram_perplexity(train, np.array([2, 3, 2]), vocab_size=4) == pytest.approx(2.0, rel=1e-2)
    assert math.isnan(unigram_perplexity(train, np.array([], dtype=np.int64), 4))


def test_bundled_corpus_splits_by_line_and_stays_small():
    import torch

    from studio.core.config import Choice
    from studio.core.config.data_loading import load_dataset

    data = load_dataset(Choice("fortunes", {"vocab_size": 500, "max_len": 8, "val_fraction": 0.1,
                                            "test_fraction": 0.1}))
    assert data.meta["task"] == "next_word" and data.num_classes == 500 and data.input_shape == (8,)
    assert data.x_train.dtype == torch.int64 and data.meta["lines"] == {"train": 556, "val": 69, "test": 69}
    assert int(data.x_train.max()) < 500 and data.meta["unigram_val_perplexity"] > 10


def test_studio_data_import_text_and_its_registry_entry(tmp_path, capsys):
    path = tmp_path / "My Headlines.txt"
    path.write_text("\n".join(LINES) + "\n\n")
    assert cli.main(["data", "import", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["name"] == "my_headlines" and report["kind"] == "text" and report["num_samples"] == 12
    assert report["skipped"] == 1
    from studio.core.datasets.catalog import DATASETS

    assert "text" in DATASETS.get("my_headlines").tags
    assert cli.main(["data", "list"]) == 0
    assert "12 lines" in capsys.readouterr().out
    (tmp_path / "u16.txt").write_bytes("a\n".encode("utf-16"))
    assert cli.main(["data", "import", str(tmp_path / "u16.txt")]) == 2
    assert "UTF-16" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["lstm_lm", "gru_lm"])
def test_next_word_models_give_one_score_per_word(name):
    import torch

    from studio.core.models import MODELS

    net = MODELS.build(name, input_shape=(6,), num_classes=50, embedding=8, hidden=12, layers=2, dropout=0.1)
    out = net(torch.randint(0, 50, (3, 6)))
    assert out.shape == (3, 50)
    with pytest.raises(Exception, match="sequences of word indices"):
        MODELS.build(name, input_shape=(1, 28, 28), num_classes=10)
