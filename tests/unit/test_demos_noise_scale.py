"""The gradient noise scale estimator (McCandlish et al. 2018, appendix A.1)."""

import numpy as np
import pytest

from studio.core.errors import ConfigError


def test_b_simple_recovers_a_known_noise_scale_from_synthetic_gradients():
    from studio.core.demos import noise_scale

    rng = np.random.default_rng(0)
    dim = 400
    g = np.full(dim, 0.25)
    sigma = rng.uniform(0.5, 1.5, dim)
    true = float((sigma**2).sum() / (g @ g))  # tr(Σ)/|G|² ≈ 42
    small, chunks = 8, 16
    est = noise_scale.NoiseScaleEstimator(small, small * chunks, decay=0.99)
    for _ in range(1500):
        per_sample = g + sigma * rng.standard_normal((small * chunks, dim))
        chunk_means = per_sample.reshape(chunks, small, dim).mean(1)
        big = chunk_means.mean(0)
        est.update(float((chunk_means**2).sum(1).mean()), float(big @ big))
    assert abs(est.b_simple - true) / true < 0.10, (est.b_simple, true)
    assert abs(est.g2 - g @ g) / (g @ g) < 0.10
    assert abs(est.trace - (sigma**2).sum()) / (sigma**2).sum() < 0.10


def test_unbiased_estimates_invert_the_expected_norms():
    from studio.core.demos import noise_scale

    g2, trace, bs, bb = 3.0, 60.0, 4, 64
    got = noise_scale.unbiased_estimates(g2 + trace / bs, g2 + trace / bb, bs, bb)
    assert got == pytest.approx((g2, trace))
    with pytest.raises(ConfigError):
        noise_scale.unbiased_estimates(1.0, 1.0, 8, 8)


def test_chunk_gradients_average_to_the_batch_gradient():
    import torch
    from torch import nn

    from studio.core.demos import noise_scale

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    x, y = torch.randn(12, 3), torch.randint(0, 2, (12,))
    grads, sq = noise_scale.chunk_gradients(model, x, y, 4)
    nn.functional.cross_entropy(model(x), y).backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(grads[name].mean(0), p.grad, rtol=1e-5, atol=1e-6)
    flat = torch.cat([g.reshape(4, -1) for g in grads.values()], 1)
    torch.testing.assert_close(sq, flat.pow(2).sum(1))


def test_training_run_reports_a_positive_noise_scale():
    from studio.core.demos import noise_scale

    result = noise_scale.run(dataset="moons", batch_size=64, small_batch=8, epochs=2, widths="16", frame_every=1,
                             threads=1)
    curve = result["curves"]["b_simple"]
    assert len(curve) == result["summary"]["steps"] and np.isfinite(curve).all()
    assert result["summary"]["b_simple"] > 0
