"""DLRM's pieces without processes: which tables each rank owns, the request's limits in one sentence, the
all-to-all's volume, and the synthetic clicks (a structure that can be learnt: the Bayes loss below the loss of
always predicting the click rate; the same batch on every rank)."""

from __future__ import annotations

import pytest

from studio.core.contracts.dlrm import (
    DlrmRequest,
    exchange_bytes,
    interactions,
    owners,
    table_bytes,
    validate,
)
from studio.core.errors import ConfigError


def test_each_table_has_one_owner_in_contiguous_blocks() -> None:
    assert owners(8, 2) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert owners(7, 3) == [[0, 1, 2], [3, 4], [5, 6]]
    for t, p in ((8, 8), (9, 4), (64, 5)):
        split = owners(t, p)
        assert sum(split, []) == list(range(t)) and max(map(len, split)) - min(map(len, split)) <= 1


def test_sizes_and_volume() -> None:
    assert table_bytes(8, 100_000, 16) == 51_200_000
    assert exchange_bytes(256, 8, 16) == 131_072
    assert interactions(8) == 36


@pytest.mark.parametrize(("request_", "words"), [
    (DlrmRequest(ranks=1), "2 to 8 processes"),
    (DlrmRequest(ranks=9), "2 to 8 processes"),
    (DlrmRequest(ranks=4, tables=3), "4 processes but only 3 tables"),
    (DlrmRequest(batch_size=255), "does not split evenly over 2 processes"),
    (DlrmRequest(rows=1), "2 to 10,000,000 rows"),
    (DlrmRequest(dim=1), "dimension is 2 to 256"),
    (DlrmRequest(steps=2, warmup_steps=2), "leave none to time"),
    (DlrmRequest(lr=0.0), "positive number"),
    (DlrmRequest(bottom=(64, 0)), "widths are whole numbers"),
    (DlrmRequest(repeats=11), "1 to 10"),
    (DlrmRequest(port=22), "1024 to 65535"),
])
def test_bad_requests_are_one_sentence_without_flag_names(request_: DlrmRequest, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate(request_)
    assert words in str(err.value) and "--" not in str(err.value) and "\n" not in str(err.value)


def test_the_clicks_can_be_learnt_and_are_the_same_batch_everywhere() -> None:
    from studio.engine.dlrm.data import ClickData

    data = ClickData(0, 8, 1000, 13)
    dense, idx, clicks = data.batch(3, 512)
    again = ClickData(0, 8, 1000, 13).batch(3, 512)
    assert all(a.equal(b) for a, b in zip((dense, idx, clicks), again, strict=True))
    assert not data.batch(4, 512)[1].equal(idx)
    assert idx.min() >= 0 and idx.max() < 1000
    assert (idx == 0).float().mean() > 10 * (idx == 500).float().mean()  # hot rows: Zipf-like
    floor, base, rate = data.floors(batches=4, size=2048)
    assert 0.15 < rate < 0.5
    assert floor < base - 0.1  # the features carry much of the click: learnable


def test_the_model_is_dlrm_shaped() -> None:
    import torch

    from studio.engine.dlrm.model import build_mlps, build_table, head, interact

    bottom, top = build_mlps(13, (64, 32), (64, 32), 16, 8, seed=0)
    assert [m.out_features for m in bottom if hasattr(m, "out_features")] == [64, 32, 16]
    assert top[0].in_features == 16 + 36 and top[-1].out_features == 1
    x, vectors = torch.randn(5, 16), torch.randn(5, 8, 16)
    features = interact(x, vectors)
    assert features.shape == (5, 52)
    assert torch.allclose(features[:, 16], (vectors[:, 0] * x).sum(1))  # the first pair: table 0 · bottom
    table = build_table(3, 1000, 16, seed=0)
    assert table.sparse and table.weight.abs().max() <= (1 / 1000) ** 0.5
    assert table.weight.equal(build_table(3, 1000, 16, seed=0).weight)  # the same on every rank
    loss = head(bottom, top, torch.randn(5, 13), vectors, torch.ones(5))
    assert loss.ndim == 0 and loss.item() > 0
