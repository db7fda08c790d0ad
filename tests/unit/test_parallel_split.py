"""One model four ways, without processes: the split into stages, the bubble's theory, the chain check, the
request's checks (one sentence each, before any process starts), the timeline's arithmetic, the activation meter."""

from __future__ import annotations

import pytest

from studio.core.contracts.parallel import ParallelRequest
from studio.core.errors import ConfigError
from studio.engine.parallel import launch
from studio.engine.parallel.network import block_costs, build_mlp, stage_modules
from studio.engine.parallel.split import balanced_split, bubble_theory, chain_blocks
from studio.engine.parallel.timeline import ActivationMeter, busy_shares, with_idle


def test_bubble_theory_is_p_minus_1_over_m_plus_p_minus_1() -> None:
    assert bubble_theory(2, 1) == pytest.approx(0.5)
    assert bubble_theory(2, 8) == pytest.approx(1 / 9)
    assert bubble_theory(4, 4) == pytest.approx(3 / 7)
    assert bubble_theory(1, 4) == 0.0
    assert [bubble_theory(2, m) for m in (1, 2, 4, 8)] == sorted([bubble_theory(2, m) for m in (1, 2, 4, 8)],
                                                                  reverse=True)


def test_balanced_split_minimises_the_largest_stage() -> None:
    assert balanced_split([1, 1, 1, 1], 2) == [2, 2]
    assert balanced_split([10, 1, 1, 1, 1], 2) == [1, 4]
    assert balanced_split([1, 1, 1, 10], 2) == [3, 1]
    assert balanced_split([3, 3, 3], 3) == [1, 1, 1]
    assert sum(balanced_split([5, 2, 7, 1, 1, 9], 3)) == 6
    # the default MLP (784-512-512-512-10): the first layer alone against the other three
    assert balanced_split(block_costs(784, (512, 512, 512), 10), 2) == [1, 3]


def test_more_ranks_than_layers_is_one_sentence() -> None:
    with pytest.raises(ConfigError, match=r"^3 ranks but the model has 2 layers to split"):
        balanced_split([1.0, 2.0], 3)
    with pytest.raises(ConfigError, match="at least 1"):
        balanced_split([1.0, 2.0], 0)


def test_stages_share_the_networks_layers_and_compose_to_it() -> None:
    import torch

    net = build_mlp(20, (8, 8), 3, seed=0)
    stages = stage_modules(net, [1, 2])
    x = torch.randn(5, 20)
    assert torch.equal(stages[1](stages[0](x)), net(x))
    assert [type(m).__name__ for m in stages[0]] == ["Linear", "ReLU"]
    assert sum(p.numel() for s in stages for p in s.parameters()) == sum(p.numel() for p in net.parameters())


def test_a_chain_passes_and_a_model_that_is_not_one_is_named() -> None:
    import torch
    from torch import nn

    class Residual(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc2(self.fc1(x)) + x

    class Branch(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b, self.c = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(8, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.a(x)
            return self.c(torch.cat([h, self.b(h)], dim=1))

    assert chain_blocks(build_mlp(20, (8,), 3, seed=0), "mlp") == ["0", "1", "2"]
    with pytest.raises(ConfigError, match=r"model 'resnet-ish' cannot be split into stages: .*not a chain"):
        chain_blocks(Residual(), "resnet-ish")
    with pytest.raises(ConfigError, match=r"model 'branchy' cannot be split into stages: its layers are not a chain"):
        chain_blocks(Branch(), "branchy")


@pytest.mark.parametrize(("changes", "sentence"), [
    ({"modes": ("single", "tensor")}, r"^unknown mode 'tensor'; the modes are single, ddp"),
    ({"ranks": 0}, r"^ranks must be at least 1 \(not 0\)"),
    ({"ranks": 3, "widths": (16,), "modes": ("model",)}, r"^3 ranks but the model has 2 layers to split"),
    ({"microbatches": (128,), "modes": ("pipeline-gpipe",), "batch_size": 64},
     r"^128 micro-batches but the batch has only 64 samples"),
    ({"microbatches": (3,), "modes": ("pipeline-1f1b",), "batch_size": 64},
     r"^the batch of 64 does not split into 3 equal micro"),
    ({"batch_size": 63, "modes": ("ddp",)}, r"^the global batch 63 does not split evenly over 2 DDP ranks"),
    ({"dataset": "nope"}, r"^no dataset named 'nope'"),
    ({"steps": 3, "warmup_steps": 3}, r"^3 steps leave none to time after 3 warm-up steps"),
])
def test_bad_requests_are_one_sentence_before_any_process(monkeypatch, changes, sentence) -> None:
    def no_process(*_a, **_k):
        raise AssertionError("a process was started")

    monkeypatch.setattr(launch.subprocess, "Popen", no_process)
    with pytest.raises(ConfigError, match=sentence) as err:
        launch.run_parallel(ParallelRequest(**changes))
    assert "\n" not in str(err.value)


def test_plan_runs_the_single_reference_first_and_says_what_1f1b_cannot_run() -> None:
    plan, notes = launch.plan_of(ParallelRequest(modes=("pipeline-1f1b", "ddp"), microbatches=(1, 4)))
    assert plan == [("single", 1), ("pipeline-1f1b", 4), ("ddp", 1)]
    assert notes and "1F1B at M=1 left out" in notes[0]


def test_timeline_gaps_are_idle_and_busy_counts_compute() -> None:
    ivs = [{"rank": 0, "kind": "forward", "start": 0.0, "end": 1.0, "step": 4, "microbatch": 0},
           {"rank": 0, "kind": "recv", "start": 1.0, "end": 2.0, "step": 4, "microbatch": None},
           {"rank": 1, "kind": "backward", "start": 2.0, "end": 3.0, "step": 4, "microbatch": 0}]
    lanes = with_idle(ivs, [0, 1], 4.0)  # type: ignore[arg-type]
    assert [(i["rank"], i["kind"], i["start"], i["end"]) for i in lanes] == [
        (0, "forward", 0.0, 1.0), (0, "recv", 1.0, 2.0), (0, "idle", 2.0, 4.0),
        (1, "idle", 0.0, 2.0), (1, "backward", 2.0, 3.0), (1, "idle", 3.0, 4.0)]
    assert busy_shares(ivs, [0, 1], 4.0) == [0.25, 0.25]  # type: ignore[arg-type]


def test_activation_meter_counts_saved_tensors_once_and_frees_them_after_backward() -> None:
    import torch

    net = build_mlp(10, (6,), 2, seed=0)
    meter = ActivationMeter(list(net.parameters()))
    x = torch.randn(4, 10)
    with meter.track():
        loss = net(x).sum()
        saved = meter.current
        loss.backward()
    # the input (4×10) and the ReLU's output (4×6, saved by the ReLU and the next Linear: once), float32
    assert saved == (4 * 10 + 4 * 6) * 4
    assert meter.step_peak == saved
    del loss
    assert meter.current == 0


def test_cuda_without_enough_gpus_is_one_sentence(monkeypatch) -> None:
    monkeypatch.setattr(launch, "_cuda_count", lambda: 0)
    with pytest.raises(ConfigError, match=r"^2 ranks need as many GPUs \(one each\); this machine has 0$"):
        launch.validate(ParallelRequest(device="cuda"))
