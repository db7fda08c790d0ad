"""The shared Transformer blocks: the recorded (explicit softmax) path equals SDPA's, masks hold."""

import pytest

from studio.core.errors import ConfigError


@pytest.mark.parametrize("causal", [False, True])
def test_recorded_attention_equals_sdpa_and_respects_masks(causal: bool) -> None:
    import torch

    from studio.core.models.transformer import Stack, attention_recorder

    torch.manual_seed(0)
    stack = Stack(32, 2, 4, causal=causal).eval()
    x = torch.randn(3, 7, 32)
    pad = torch.zeros(3, 7, dtype=torch.bool)
    pad[1, 5:] = True
    fast = stack(x, pad)
    with attention_recorder(stack) as weights:
        slow = stack(x, pad)
        maps = weights()
    assert torch.allclose(fast, slow, atol=1e-5)
    assert len(maps) == 2 and maps[0].shape == (3, 4, 7, 7)
    assert torch.allclose(maps[0].sum(-1), torch.ones(3, 4, 7), atol=1e-5)
    assert maps[0][1, :, :, 5:].abs().max() == 0  # padding is never attended to
    if causal:
        assert maps[1][0].triu(1).abs().max() == 0  # no position sees the future
    assert all(layer.weights is None for layer in stack.modules() if hasattr(layer, "record"))


def test_heads_must_divide_d_model() -> None:
    from studio.core.models.transformer import check_heads

    with pytest.raises(ConfigError, match="heads \\(4\\) must divide d_model \\(30\\)"):
        check_heads(30, 4)


def test_non_embedding_parameters_skips_embeddings() -> None:
    import torch

    from studio.core.models.transformer import non_embedding_parameters

    model = torch.nn.Sequential(torch.nn.Embedding(100, 8), torch.nn.Linear(8, 8))
    assert non_embedding_parameters(model) == 8 * 8 + 8


def test_token_prediction_counts_only_the_chosen_positions() -> None:
    import torch

    from studio.core.maths.objectives import IGNORE, task_for

    task = task_for({"task": "tokens"})
    out = torch.zeros(2, 3, 5)
    out[0, 0, 1] = 10.0  # right at a counted position
    out[1, 2, 4] = 10.0  # right, but the position is ignored
    y = torch.tensor([[1, IGNORE, 2], [IGNORE, 3, 4]])
    y[1, 2] = IGNORE
    total, correct, n = task.sums(out, y).tolist()
    assert n == 3 and correct == 1
    assert abs(total / n - float(task.loss(out, y))) < 1e-5
    all_ignored = torch.full((2, 3), IGNORE)
    assert task.sums(out, all_ignored).tolist() == [0.0, 0.0, 0.0]
