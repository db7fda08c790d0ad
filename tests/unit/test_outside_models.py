"""The models from outside the catalog, built as a rank builds them: a user's file (a class and a factory, the
dataset's values filled in), a timm model and a tiny Hugging Face model (no network: timm with
``pretrained = false``, transformers from a random ``AutoConfig`` saved to disk); and their one-sentence errors: a
timm architecture or a Hugging Face folder that does not exist, a dataset whose items are not (input, label)
pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.config.data_fit import check_model_data
from studio.core.errors import ConfigError
from studio.core.models import MODELS
from tests.own_code_files import write_tiny_hf, write_user_files


def test_a_user_class_and_a_factory_get_the_datasets_values(tmp_path: Path) -> None:
    import torch

    model_file, _ = write_user_files(tmp_path)
    mlp = MODELS.build("python", input_shape=(3, 16, 16), num_classes=4, path=str(model_file),
                       args={"width": 8, "depth": 2}, **{"class": "MLP"})
    assert mlp(torch.zeros(5, 3, 16, 16)).shape == (5, 4)
    assert sum(p.numel() for p in mlp.parameters()) == (768 * 8 + 8) + (8 * 8 + 8) + (8 * 4 + 4)
    cnn = MODELS.build("python", input_shape=(3, 16, 16), num_classes=4, path=str(model_file), args={},
                       **{"class": "small_cnn"})
    assert cnn[0].in_channels == 3 and cnn(torch.zeros(2, 3, 16, 16)).shape == (2, 4)


def test_timm_takes_the_datasets_channels_and_classes() -> None:
    import torch

    net = MODELS.build("timm", input_shape=(1, 16, 16), num_classes=3, arch="test_resnet", pretrained=False,
                       in_chans=0)
    assert net(torch.zeros(2, 1, 16, 16)).shape == (2, 3)


def test_an_unknown_timm_architecture_names_close_ones() -> None:
    with pytest.raises(ConfigError, match=r"^timm has no model 'resnet181'; close: resnet18"):
        MODELS.build("timm", input_shape=(3, 16, 16), num_classes=3, arch="resnet181")


def test_hugging_face_classifier_and_causal_lm(tmp_path: Path) -> None:
    import torch

    bert = MODELS.build("hf", input_shape=(12,), num_classes=4, path=str(write_tiny_hf(tmp_path / "bert")),
                        vocab_size=300)
    ids = torch.randint(1, 300, (2, 12))
    assert bert(ids).shape == (2, 4)
    assert "tokens: Studio's vocabulary (the folder has no tokenizer), 300 of them" in bert.tokens_note
    assert [m.shape for m in bert.attention_maps(ids)] == [(2, 2, 12, 12)] * 2
    gpt = MODELS.build("hf", input_shape=(10,), num_classes=350, path=str(write_tiny_hf(tmp_path / "gpt", "gpt2")))
    assert gpt(torch.randint(0, 350, (2, 10))).shape == (2, 10, 350)  # the model's 400 logits cut to the vocabulary


def test_a_vocabulary_larger_than_the_embedding_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="embeds 400 tokens but the dataset's vocabulary has 2000: set "
                                          "data.vocab_size to 400 or less"):
        MODELS.build("hf", input_shape=(12,), num_classes=4, path=str(write_tiny_hf(tmp_path / "b")),
                     vocab_size=2000)


def test_a_hugging_face_folder_that_does_not_exist_is_refused_before_start(tmp_path: Path) -> None:
    cfg = RunConfig().with_overrides(["model.name=hf", f"model.path={tmp_path / 'nowhere'}",
                                      "data.name=fortune_sources"])
    with pytest.raises(ConfigError, match=r"^no Hugging Face model folder at .*nowhere$"):
        check_model_data(cfg)
    hub = RunConfig().with_overrides(["model.name=hf", "model.path=someone/not-cached-model",
                                      "data.name=fortune_sources"])
    with pytest.raises(ConfigError, match="not a folder here and not in the local hub cache"):
        check_model_data(hub)


def test_dataset_items_that_are_not_pairs(tmp_path: Path) -> None:
    from studio.core.datasets.code_data import load_python

    _, data_file = write_user_files(tmp_path)
    with pytest.raises(ConfigError, match=r"^NotPairs's items are dicts, not \(input, label\) pairs: return \(x, y\) "
                                          r"from __getitem__$"):
        load_python(path=str(data_file), args={}, **{"class": "NotPairs"})


def test_a_folder_with_its_own_tokenizer_tokenizes_studios_text(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    from studio.core.config.data_loading import load_dataset
    from studio.core.contracts.registry import Choice
    from studio.core.models.catalog import build_kwargs
    from tests.own_code_files import write_tokenizer

    folder = write_tokenizer(write_tiny_hf(tmp_path / "bert"))
    model = Choice("hf", {"path": str(folder), "context": 32})
    data = load_dataset(Choice("fortune_sources", {"max_len": 12}), model=model)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert data.input_shape == (13,) and data.meta["tokens"] == "the folder's tokenizer"
    assert len(data.meta["vocabulary"]) == 300 and data.meta["pad_id"] == tokenizer.pad_token_id == 0
    row = data.x_train[0].tolist()
    assert tokenizer.decode([i for i in row if i]).split()[0] in tokenizer.get_vocab()  # ids of the tokenizer
    net = MODELS.build("hf", **build_kwargs("hf", model.params, data.input_shape, data.num_classes, data.meta))
    assert "tokens: the folder's tokenizer, 300 of them" in net.tokens_note
    assert net(data.x_train[:3]).shape == (3, 4)
    corpus = load_dataset(Choice("fortunes", {}), model=Choice("hf", {"path": str(folder), "context": 8}))
    assert corpus.input_shape == (8,) and corpus.num_classes == 300 and corpus.meta["task"] == "tokens"
