"""Devlin et al. 2019 / Howard & Ruder 2018: masked-LM pretraining helps most with few labels — on a synthetic
language whose word classes only the unlabelled text reveals; text of random words teaches nothing and FAILs."""

import numpy as np
import pytest

from studio.core.checks.catalog import run_check
from studio.core.checks.paper import devlin_bert_pretraining as check


def test_the_topical_corpus_holds_one_class_per_sentence_and_the_random_one_does_not():
    from studio.core.datasets.text.bert_text import FIRST_WORD as first

    rng = np.random.default_rng(0)
    for corpus, pure in (("topical", True), ("random", False)):
        rows, classes = check.language(rng, 200, 4, corpus)
        assert rows.shape == (200, 1 + check.LENGTH) and (rows[:, 0] == 2).all()  # [CLS] first
        content = rows[:, 1:] - first
        owner = np.where(content < check.CONTENT, 0, np.where(content < 2 * check.CONTENT, 1, -1))
        one_class = [len(set(o[o >= 0])) <= 1 and (o[o >= 0] == c).all() for o, c in zip(owner, classes, strict=True)]
        assert all(one_class) == pure


def test_text_of_random_words_gives_no_gain_and_fails():
    """The broken set-up: unlabelled text with no structure; the pretrained encoder is no better than scratch."""
    outcome = run_check("devlin_bert_pretraining", seeds=2, corpus="random", pretrain_steps=200)
    assert not outcome.error and not outcome.passed
    gain = outcome.measures[0]
    assert "40 labelled" in gain.label and not gain.passed and gain.ours < 5


@pytest.mark.slow
@pytest.mark.pooled_check("devlin_bert_pretraining", seed=5)
def test_held_out_seeds_pass_too(pooled_check):
    """Seeds 5–9 (the check's 0–4 run in test_all_checks)."""
    outcome = pooled_check("devlin_bert_pretraining", seed=5)
    assert outcome.passed, outcome.to_dict()
    for r in outcome.details["per_seed"]:
        assert r["few"]["pretrained"] > r["few"]["scratch"] + 0.1
        assert r["many"]["scratch"] > 0.95  # with every word labelled, scratch gets there too
