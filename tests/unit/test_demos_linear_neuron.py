"""The linear neuron: the contour, the convergence check, SGD's noise against the batch size."""

import numpy as np


def _line(seed: int = 0):
    import torch

    from studio.core.datasets.noisy_line import make_line

    x, y = make_line(200, 2.0, -1.0, 0.3, torch.Generator().manual_seed(seed))
    return x.double().flatten(), y.double().flatten()


def test_sgd_path_variance_grows_as_the_batch_shrinks():
    from studio.core.demos import linear_neuron as ln

    x, y = _line()
    center = ln.least_squares(x.numpy(), y.numpy())
    variances = []
    for batch in (64, 16, 4, 1):
        runs = [ln.descend(x, y, "sgd", 0.3, 400, center, batch_size=batch, seed=s)["path"] for s in range(3)]
        variances.append(np.mean([ln.path_variance(p, center) for p in runs]))
    assert all(a < b for a, b in zip(variances, variances[1:], strict=False)), variances
    assert variances[-1] > 10 * variances[0]


def test_full_batch_gd_stops_by_the_convergence_check_near_least_squares():
    from studio.core.demos import linear_neuron as ln

    result = ln.run(steps=500, tolerance=1e-8)
    s = result["summary"]
    assert s["gd"]["converged_at"] is not None and s["gd"]["converged_at"] < 500
    assert abs(s["gd"]["w"] - s["least_squares"]["w"]) < 0.01
    assert abs(s["gd"]["b"] - s["least_squares"]["b"]) < 0.01
    # after the check fired the path stays put
    stop = s["gd"]["converged_at"]
    assert np.all(result["paths"][0, stop:] == result["paths"][0, stop])


def test_loss_grid_is_the_mean_squared_error():
    from studio.core.demos import linear_neuron as ln

    x, y = _line()
    xn, yn = x.numpy(), y.numpy()
    ws, bs = np.array([-1.0, 0.5, 2.0]), np.array([0.0, -1.0])
    z = ln.loss_grid(xn, yn, ws, bs)
    for i, b in enumerate(bs):
        for j, w in enumerate(ws):
            assert abs(z[i, j] - np.mean((w * xn + b - yn) ** 2)) < 1e-10
    w_star, b_star = ln.least_squares(xn, yn)
    assert abs(w_star - 2.0) < 0.3 and abs(b_star + 1.0) < 0.2  # the line that made the data
