"""BERT: the masked-LM corruption's proportions, [CLS]-first rows, the encoder (padding never changes [CLS]), the
classifier loading a pretraining run's encoder, and the checks made before any process starts."""

from __future__ import annotations

import numpy as np
import pytest

from studio.core.config import RunConfig
from studio.core.datasets.text import bert_text
from studio.core.datasets.text.bert_text import CLS_ID, FIRST_WORD, IGNORE, MASK_ID
from studio.core.errors import ConfigError


def test_masking_chooses_15_percent_then_80_10_10():
    rng = np.random.default_rng(0)
    rows = rng.integers(FIRST_WORD, 500, size=(4000, 51))
    rows[:, 0] = CLS_ID
    rows[:, 41:] = 0  # padding
    x, y = bert_text.mask_tokens(rows, 500, rng)
    chosen = y != IGNORE
    real = chosen.sum() / (4000 * 40)
    assert abs(real - 0.15) < 0.005
    assert not chosen[:, 0].any() and not chosen[:, 41:].any()  # never [CLS], never padding
    assert (y[chosen] == rows[chosen]).all()  # the targets are the original words
    masked, kept = (x[chosen] == MASK_ID).mean(), (x[chosen] == rows[chosen]).mean()
    swapped = ((x[chosen] != MASK_ID) & (x[chosen] != rows[chosen])).mean()
    assert abs(masked - 0.8) < 0.01 and abs(kept - 0.1) < 0.01 and abs(swapped - 0.1) < 0.01
    random_ids = x[chosen & (x != MASK_ID) & (x != rows)]
    assert (random_ids >= FIRST_WORD).all() and (random_ids < 500).all()
    assert (x[~chosen] == rows[~chosen]).all()  # nothing else changes
    a, b = (bert_text.mask_tokens(rows, 500, np.random.default_rng(7)) for _ in range(2))  # static: seeded
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_vocabulary_and_rows_put_cls_first_and_pad_with_zero():
    vocab = bert_text.fit_vocabulary(["the cat sat", "the dog"], 6)
    assert vocab.tokens[:4] == ["<pad>", "<oov>", "[CLS]", "[MASK]"] and vocab.tokens[4] == "the"
    assert len(vocab) == 6 and bert_text.is_bert_vocabulary(vocab.tokens)
    rows = bert_text.encode_rows(vocab, ["the cat sat on a mat", "zebra"], 3)
    assert rows.tolist() == [[CLS_ID, 4, vocab.index["cat"], 1], [CLS_ID, 1, 0, 0]]  # cut at 3; OOV is 1


def test_masked_lm_dataset_never_trains_on_the_classifiers_test_lines():
    import torch

    from studio.core.datasets.bert_data import load_labelled_text, load_masked_lm

    mlm = load_masked_lm("masked_lm", seed=3, copies=2, max_len=16)
    labelled = load_labelled_text("fortune_sources", max_len=16)
    assert mlm.meta["task"] == "tokens" and mlm.x_train.shape[1] == 17 and len(mlm.x_train) == 2 * len(labelled.x_train)
    originals = torch.where(mlm.y_train == IGNORE, mlm.x_train, mlm.y_train)  # undo the corruption
    train_rows = {tuple(r) for r in originals.tolist()}
    test_rows = {tuple(r) for r in labelled.x_test.tolist()}
    assert {tuple(r) for r in labelled.x_train.tolist()} <= train_rows
    assert len(test_rows - train_rows) > 0.9 * len(test_rows)  # (a few short lines coincide)
    assert labelled.classes == ["computers", "politics", "science", "work"]
    assert labelled.meta["vocabulary"][2] == "[CLS]"
    few = load_labelled_text("fortune_sources", max_len=16, label_fraction=0.2)
    assert len(few.x_train) == round(0.2 * len(labelled.x_train)) and torch.equal(few.y_test, labelled.y_test)
    assert torch.equal(few.y_train, labelled.y_train[:len(few.y_train)])  # the same lines in every run


def test_the_cls_vector_ignores_padding_and_the_head_is_tied():
    import torch

    from studio.core.models.bert import build_bert_classifier, build_bert_mlm

    torch.manual_seed(0)
    mlm = build_bert_mlm((9,), 50, layers=2, heads=2, d_model=16, context=12, dropout=0.0).eval()
    x = torch.tensor([[CLS_ID, 7, 8, 9, 0, 0, 0, 0, 0]])
    assert mlm(x).shape == (1, 9, 50)
    short = mlm.encoder(x[:, :4])[:, 0]
    assert torch.allclose(mlm.encoder(x)[:, 0], short, atol=1e-5)  # padding is masked out of attention
    assert mlm.encoder.embed.weight.shape == (50, 16)
    assert not any(p.shape == (50, 16) for n, p in mlm.named_parameters() if not n.startswith("encoder.embed"))
    clf = build_bert_classifier((9,), 4, layers=2, heads=2, d_model=16, context=12, vocab_size=50).eval()
    assert clf(x).shape == (1, 4)


def _finished_mlm_run(store, d_model: int = 16, status: str = "finished"):
    import torch

    from studio.core.contracts import layout
    from studio.core.models.bert import build_bert_mlm

    cfg = RunConfig.from_dict({"data": {"name": "masked_lm", "max_len": 8},
                               "model": {"name": "bert_mlm", "layers": 1, "heads": 2, "d_model": d_model,
                                         "context": 12}})
    info = store.create_run(cfg)
    net = build_bert_mlm((9,), 2000, layers=1, heads=2, d_model=d_model, context=12)
    layout.checkpoints_dir(info.dir).mkdir(parents=True, exist_ok=True)
    torch.save({"model": net.state_dict(), "step": 1}, layout.final_path(info.dir))
    store.set_status(info.id, status)
    return info, net


def _classifier(**model) -> RunConfig:
    return RunConfig.from_dict({"data": {"name": "fortune_sources", "max_len": 8},
                                "model": {"name": "bert_classifier", "layers": 1, "heads": 2, "d_model": 16,
                                          "context": 12, **model}})


def test_the_classifier_starts_from_the_pretraining_runs_encoder():
    import torch

    from studio.core.models.bert import build_bert_classifier
    from studio.core.runs.lineage import check_bert_config, start_weights
    from studio.core.runs.store import RunStore

    store = RunStore()
    info, mlm = _finished_mlm_run(store)
    cfg = _classifier(init_from=info.id, frozen_epochs=1, base_lr_factor=0.1)
    check_bert_config(cfg, store)
    assert cfg.data.params["vocab_from"] == info.id  # the labelled text is tokenized with the run's vocabulary
    clf = build_bert_classifier((9,), 4, layers=1, heads=2, d_model=16, context=12, init_from=info.id,
                                vocab_size=2000, frozen_epochs=1, base_lr_factor=0.1, **start_weights(cfg, store))
    assert torch.equal(clf.encoder.embed.weight, mlm.encoder.embed.weight)
    assert torch.equal(clf.encoder.stack.blocks[0].attn.qkv.weight, mlm.encoder.stack.blocks[0].attn.qkv.weight)
    assert clf.base_frozen and not clf.encoder.embed.weight.requires_grad and clf.head.weight.requires_grad
    groups = clf.optimizer_groups(0.01)
    assert groups[1]["lr"] == pytest.approx(0.001) and len(groups[0]["params"]) == 2
    clf.freeze_base(False)
    assert clf.encoder.embed.weight.requires_grad


def test_bad_pretraining_runs_are_refused_in_one_sentence():
    from studio.core.runs.lineage import check_bert_config
    from studio.core.runs.store import RunStore

    store = RunStore()
    with pytest.raises(ConfigError, match="no run 'nope'"):
        check_bert_config(_classifier(init_from="nope"), store)
    stopped, _ = _finished_mlm_run(store, status="stopped")
    with pytest.raises(ConfigError, match="is stopped, not finished: finish it first"):
        check_bert_config(_classifier(init_from=stopped.id), store)
    gone, _ = _finished_mlm_run(store)
    from studio.core.contracts import layout

    layout.final_path(gone.dir).unlink()
    with pytest.raises(ConfigError, match="has no final weights"):
        check_bert_config(_classifier(init_from=gone.id), store)
    other = store.create_run(RunConfig.from_dict({"data": {"name": "moons"}, "model": {"name": "mlp"}}))
    store.set_status(other.id, "finished")
    with pytest.raises(ConfigError, match="trained mlp, not bert_mlm"):
        check_bert_config(_classifier(init_from=other.id), store)
    good, _ = _finished_mlm_run(store)
    with pytest.raises(ConfigError, match="model.d_model is 32 but pretraining run .* has d_model 16"):
        check_bert_config(_classifier(init_from=good.id, d_model=32, heads=2), store)
    with pytest.raises(ConfigError, match="model.layers is 2 .* has layers 1"):
        check_bert_config(_classifier(init_from=good.id, layers=2), store)
    with pytest.raises(ConfigError, match="data.vocab_from is x but model.init_from"):
        cfg = _classifier(init_from=good.id)
        cfg.data.params["vocab_from"] = "x"
        check_bert_config(cfg, store)
    with pytest.raises(ConfigError, match="plus \\[CLS\\] is longer than model.context 8"):
        check_bert_config(_classifier(context=8), store)
    with pytest.raises(ConfigError, match="heads \\(3\\) must divide d_model \\(16\\)"):
        check_bert_config(_classifier(heads=3), store)
    with pytest.raises(ConfigError, match="bert_classifier classifies labelled text"):
        check_bert_config(RunConfig.from_dict({"data": {"name": "fortunes"}, "model": {"name": "bert_classifier"}}))
    with pytest.raises(ConfigError, match="bert_mlm pretrains on the masked_lm dataset"):
        check_bert_config(RunConfig.from_dict({"data": {"name": "fortunes"}, "model": {"name": "bert_mlm"}}))
