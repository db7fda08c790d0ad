"""The optimizer builders take torch's fused kernel where it applies, and it computes what the per-tensor loop
does (core/optim/builders.py)."""

from __future__ import annotations

from typing import Any

import pytest

FUSED = ("adam", "amsgrad", "adamw")  # torch is imported by the tests, not at collection


def _net() -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))


def _train(name: str, fused: bool) -> list:
    import torch
    from torch import nn

    from studio.core.optim import OPTIMIZERS

    net = _net()
    opt = OPTIMIZERS.build(name, params=net.parameters(), **OPTIMIZERS.resolve(name, {"lr": 0.05}, "optimizer"))
    if not fused:
        for group in opt.param_groups:
            group["fused"] = None
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        x, y = torch.randn(8, 6, generator=gen), torch.randint(0, 3, (8,), generator=gen)
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return [p.detach().clone() for p in net.parameters()]


@pytest.mark.parametrize("name", FUSED)
def test_the_fused_kernel_is_taken_and_agrees_with_the_per_tensor_loop(name):
    import torch

    from studio.core.optim import OPTIMIZERS

    net = _net()
    opt = OPTIMIZERS.build(name, params=net.parameters(), **OPTIMIZERS.resolve(name, {"lr": 0.05}, "optimizer"))
    assert opt.param_groups[0]["fused"] is True
    assert len(opt.param_groups[0]["params"]) == 4  # the generator was read once, whole
    for fast, slow in zip(_train(name, True), _train(name, False), strict=True):
        torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-6)


def test_groups_keep_their_own_settings_and_parameters():
    from studio.core.optim.builders import fused_kwargs

    net = _net()
    groups = [{"params": net[0].parameters(), "lr": 0.001}, {"params": net[2].weight}]
    items, fused = fused_kwargs(groups)
    assert fused == {"fused": True}
    assert items[0]["lr"] == 0.001 and len(items[0]["params"]) == 2 and items[1]["params"] == [net[2].weight]


def test_sgd_keeps_the_loop_that_takes_sparse_gradients():
    import torch
    from torch import nn

    from studio.core.optim import OPTIMIZERS

    emb = nn.Embedding(10, 3, sparse=True)
    opt = OPTIMIZERS.build("sgd", params=emb.parameters(), **OPTIMIZERS.resolve("sgd", {"lr": 0.1}, "optimizer"))
    emb(torch.tensor([1, 2])).sum().backward()
    opt.step()  # a fused SGD refuses sparse gradients here
    assert emb.weight.grad.is_sparse


def test_no_fused_kernel_where_torch_has_none():
    from torch import nn

    from studio.core.optim.builders import fused_kwargs

    meta = nn.Linear(3, 2, device="meta")
    assert fused_kwargs(meta.parameters())[1] == {}
    assert fused_kwargs([])[1] == {}
