"""Filter-normalised directions (Li et al. 2018): every filter has its weight filter's norm."""




def _models():
    import torch
    from torch import nn

    from studio.core.models.builders import build_cnn

    torch.manual_seed(0)
    yield nn.Sequential(nn.Flatten(), nn.Linear(12, 7), nn.ReLU(), nn.Linear(7, 3))
    yield build_cnn((1, 12, 12), 4, filters=[5, 6, 3], dense=8)


def test_every_filter_has_the_norm_of_its_weight_filter():
    import torch

    from studio.core.landscape.directions import normalized_directions, parameters_of

    for model in _models():
        weights = parameters_of(model)
        d1, d2 = normalized_directions(weights, 2, seed=3)
        assert d1.keys() == weights.keys()
        filtered = 0
        for name, w in weights.items():
            if w.dim() > 1:
                filtered += 1
                for d in (d1, d2):
                    got = d[name].flatten(1).norm(dim=1)
                    want = w.flatten(1).norm(dim=1)
                    assert torch.allclose(got, want, rtol=1e-5), name
                assert not torch.allclose(d1[name], d2[name])  # two different directions
                assert not torch.allclose(d1[name] / want.view(-1, *[1] * (w.dim() - 1)),
                                          w / want.view(-1, *[1] * (w.dim() - 1)))  # random, not the weights
            else:  # biases and BatchNorm scales/shifts are not moved by default
                assert torch.count_nonzero(d1[name]) == 0, name
        assert filtered >= 2


def test_bias_and_batch_norm_can_be_included():
    import torch

    from studio.core.landscape.directions import filter_normalize, parameters_of, random_direction
    from studio.core.models.builders import build_cnn

    model = build_cnn((1, 12, 12), 4, filters=[5, 6, 3], dense=8)
    weights = parameters_of(model)
    d = filter_normalize(random_direction(weights, torch.Generator().manual_seed(0)), weights, include_bias_bn=True)
    one_dim = [n for n, w in weights.items() if w.dim() == 1]
    assert any("bias" in n for n in one_dim) and len(one_dim) > 4  # conv/linear biases and BN weight/bias
    for name in one_dim:
        assert torch.equal(d[name], weights[name])  # the paper's code: the direction equals the weights


def test_directions_are_seeded():
    import torch

    from studio.core.landscape.directions import normalized_directions, parameters_of

    weights = parameters_of(next(_models()))
    a, b = normalized_directions(weights, 1, seed=5)[0], normalized_directions(weights, 1, seed=5)[0]
    c = normalized_directions(weights, 1, seed=6)[0]
    assert all(torch.equal(a[n], b[n]) for n in a)
    assert not all(torch.equal(a[n], c[n]) for n in a)
