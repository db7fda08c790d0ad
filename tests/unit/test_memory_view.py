"""The memory view (core/estimates/memory.py) and Adam with bfloat16 moments (core/optim/low_precision.py):
computed beside measured, the optimizer's multiple, bf16 activations about half, bf16 state that trains."""

from __future__ import annotations

import json

import pytest

from studio.cli import main as cli_main
from studio.core.config import RunConfig
from studio.core.contracts.jobs import MemoryRow, MemoryView
from studio.core.numbers.byte_size import byte_size
from studio.core.optim import OPTIMIZERS

CNN = ["model.name=cnn", "train.batch_size=32"]


def rows(*sets: str) -> dict:
    from studio.core.estimates.memory import memory_of_config

    view = memory_of_config(RunConfig().with_overrides(list(sets)))
    return {r["item"].split(" (")[0].split(" per ")[0]: r for r in view["rows"]} | {"_view": view}


def test_parameters_gradients_and_adam_state_computed_equal_measured():
    from studio.core.estimates.memory import format_memory

    r = rows(*CNN)
    params = r["parameters"]["computed"]
    assert params == r["parameters"]["measured"] == r["gradients"]["measured"] > 0
    assert r["optimizer state"]["computed"] == r["optimizer state"]["measured"] == 2 * params
    assert "activations" in r and r["_view"]["device"] == "cpu" and r["_view"]["micro_batch"] == 32
    assert "MiB" in format_memory(r["_view"])
    assert [byte_size(n) for n in (None, 512, 3 * 2**10, 1002 * 2**10, 1.5 * 2**20, 2**31)] == \
        ["—", "512 B", "3.00 KiB", "0.98 MiB", "1.50 MiB", "2.00 GiB"]
    assert list(r["_view"]) == list(MemoryView.__annotations__)  # the contract's keys, in order
    assert all(list(row) == list(MemoryRow.__annotations__) for row in r["_view"]["rows"])


def test_sgd_momentum_is_one_times_and_bf16_moments_halve_adam():
    from studio.core.estimates.memory import optimizer_factor

    assert rows("optimizer.name=sgd", "optimizer.momentum=0.9")["optimizer state"]["measured"] == \
        rows()["parameters"]["computed"]
    both = rows("optimizer.state_dtype=bf16_both")
    first = rows("optimizer.state_dtype=bf16_first")
    p = both["parameters"]["computed"]
    assert both["optimizer state"]["measured"] == both["optimizer state"]["computed"] == p
    assert first["optimizer state"]["measured"] == first["optimizer state"]["computed"] == p * 3 // 2
    assert optimizer_factor("amsgrad", {}) == 3.0 and optimizer_factor("lookahead", {}) is None


def test_bf16_activations_are_about_half_and_accumulation_keeps_one_micro_batch():
    fp32, bf16 = rows(*CNN)["activations"], rows(*CNN, "train.precision=bf16")["activations"]
    for key in ("computed", "measured"):
        assert 0.4 < bf16[key] / fp32[key] < 0.65
    assert 0.8 < fp32["measured"] / fp32["computed"] < 1.25  # the layers' outputs ≈ what autograd keeps
    quarter = rows("model.name=cnn", "train.batch_size=8", "train.accumulate_steps=4")["activations"]
    assert 0.15 < quarter["measured"] / fp32["measured"] < 0.35  # micro-batch 8, not the global 32


def test_adam_with_bf16_moments_keeps_bf16_state_and_trains():
    import torch

    from studio.core.optim.low_precision import LowPrecisionAdam

    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = x @ torch.randn(8, 1)
    model = torch.nn.Linear(8, 1)
    opt = OPTIMIZERS.build("adamw", params=model.parameters(), lr=0.05, state_dtype="bf16_both")
    assert isinstance(opt, LowPrecisionAdam)
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        first = first if first is not None else loss.item()
        loss.backward()
        opt.step()
    assert loss.item() < 0.01 * first
    state = opt.state[model.weight]
    assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == torch.bfloat16


def test_with_fp32_state_it_is_torch_adam():
    import torch

    from studio.core.optim.low_precision import LowPrecisionAdam

    torch.manual_seed(0)
    a, b = torch.nn.Linear(6, 2), torch.nn.Linear(6, 2)
    b.load_state_dict(a.state_dict())
    ta = torch.optim.AdamW(a.parameters(), lr=0.01, weight_decay=0.1)
    tb = LowPrecisionAdam(b.parameters(), lr=0.01, weight_decay=0.1, decoupled=True, state_dtype="fp32")
    x = torch.randn(32, 6)
    for _ in range(10):
        for m, o in ((a, ta), (b, tb)):
            o.zero_grad()
            m(x).square().mean().backward()
            o.step()
    torch.testing.assert_close(a.weight, b.weight)
    with pytest.raises(ValueError):
        LowPrecisionAdam(b.parameters(), state_dtype="fp8")


def test_cli_model_summary_memory(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    assert cli_main(["model", "summary", "--memory", "--json", "--set", "model.name=mlp",
                     "--set", "optimizer.state_dtype=bf16_first"]) == 0
    memory = json.loads(capsys.readouterr().out)["memory"]
    items = {r["item"].split(" (")[0]: r for r in memory["rows"]}
    assert items["optimizer state"]["measured"] == items["parameters"]["measured"] * 3 // 2
    assert cli_main(["model", "summary", "--memory", "--set", "model.name=mlp"]) == 0
    text = capsys.readouterr().out
    assert "computed" in text and "measured" in text and "activations per micro-batch of 128" in text
    assert cli_main(["model", "summary", "--set", "model.name=mlp", "--json"]) == 0
    assert "memory" not in json.loads(capsys.readouterr().out)  # only when asked
