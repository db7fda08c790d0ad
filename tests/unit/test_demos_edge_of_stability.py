"""The edge-of-stability demo (Cohen et al. 2021): thresholds, the sharpness, the frames, the phases."""

import numpy as np
import pytest

from studio.core.errors import ConfigError


def test_the_threshold_is_2_over_eta_and_2_plus_2_beta_over_eta_with_momentum():
    from studio.core.demos import edge_of_stability as eos

    assert eos.threshold(0.05) == pytest.approx(40.0)
    assert eos.threshold(0.095, 0.9) == pytest.approx(40.0)
    assert eos.threshold(0.1, 0.5) == pytest.approx(30.0)


def test_sharpness_is_the_top_eigenvalue_of_the_full_hessian():
    import torch
    from torch import nn

    from studio.core.demos import edge_of_stability as eos

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x, y = torch.randn(20, 3), torch.randint(0, 2, (20,))
    loss_fn = eos.half_squared_error(2)
    names = [n for n, _ in model.named_parameters()]
    shapes = [p.shape for p in model.parameters()]
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])

    def loss_of(theta):
        params, i = {}, 0
        for name, shape in zip(names, shapes, strict=True):
            params[name] = theta[i:i + shape.numel()].reshape(shape)
            i += shape.numel()
        return loss_fn(torch.func.functional_call(model, params, (x,)), y) / len(y)

    exact = float(torch.linalg.eigvalsh(torch.autograd.functional.hessian(loss_of, flat))[-1])
    assert eos.sharpness(model, x, y, loss_fn, iters=40)[0] == pytest.approx(exact, rel=1e-3)


def test_standardise_centres_and_scales_each_feature():
    import torch

    from studio.core.demos import edge_of_stability as eos

    x = torch.randn(500, 1, 2, 3) * torch.arange(1, 7).reshape(1, 1, 2, 3) + 5
    x[:, 0, 0, 0] = 2.0  # a constant feature: centred to 0, not divided by 0
    z = eos.standardise(x).reshape(500, -1)
    assert z.shape == (500, 6) and torch.isfinite(z).all()
    assert z.mean(0).abs().max() < 1e-4
    assert torch.allclose(z[:, 1:].std(0), torch.ones(5), atol=1e-4) and z[:, 0].abs().max() == 0


def test_phases_find_the_arrival_the_edge_and_the_falling_loss():
    from studio.core.demos import edge_of_stability as eos

    steps = list(range(0, 110, 10))
    sharp = [20, 24, 28, 33, 37, 41, 42, 39, 41, 43, 40]  # threshold 40: reached at step 40 (37 ≥ 36)
    losses = list(np.linspace(1.0, 0.5, 101))
    losses[70] = 0.9  # one spike
    found = eos.phases(steps, [float(s) for s in sharp], 40.0, losses)
    assert found["start_ratio"] == pytest.approx(0.5) and found["arrived_step"] == 40
    assert found["edge_measurements"] == 7 and found["edge_share_in_band"] == 1.0
    assert found["edge_median_ratio"] == pytest.approx(41 / 40)
    assert found["edge_loss_rises"] == 1 and found["edge_loss_fall"] < 0.9
    never = eos.phases(steps, [10.0] * len(steps), 40.0, losses)
    assert never["arrived_step"] is None and never["edge_median_ratio"] is None


def test_a_short_run_sends_a_frame_per_measurement_with_every_steps_loss():
    from studio.core.demos import edge_of_stability as eos

    frames = []
    result = eos.run(dataset="fashion_mnist_small", n_samples=200, widths="16", steps=40, sharpness_every=10,
                     lr=0.05, momentum=0.9, lanczos_iters=10, threads=1, emit=frames.append)
    assert [f["step"] for f in frames] == [0, 10, 20, 30, 40]
    assert all(f["threshold"] == pytest.approx(eos.threshold(0.05, 0.9)) for f in frames)
    assert {"step", "sharpness", "threshold", "loss", "train_acc", "loss_from", "losses"} <= set(frames[0])
    losses = [v for f in frames for v in f["losses"]]
    assert len(losses) == 41 and np.allclose(losses, result["losses"])
    assert [f["loss_from"] for f in frames] == [0, 1, 11, 21, 31]
    summary = result["summary"]
    assert summary["threshold"] == pytest.approx(76.0) and summary["steps"] == 40 and summary["n_samples"] == 200
    assert summary["sharpness_start"] > 0 and summary["loss_end"] < summary["loss_start"]
    assert len(result["curves"]["sharpness"]) == 5


def test_momentum_out_of_range_is_refused():
    from studio.core.demos import edge_of_stability as eos

    with pytest.raises(ConfigError):
        eos.run(momentum=1.0, steps=1)
