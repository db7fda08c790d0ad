"""Sweep values (lists, ranges, log ranges) and the grid of configs they give (core/config/sweep.py)."""

import pytest

from studio.core.config import RunConfig
from studio.core.config.sweep import sweep_configs, sweep_values
from studio.core.errors import ConfigError


def test_sweep_values_and_configs():
    assert sweep_values("0.001, 0.01,0.1") == [0.001, 0.01, 0.1]
    assert sweep_values("16:64:16") == [16, 32, 48, 64]
    assert sweep_values("0.1:0.3:0.1") == [0.1, 0.2, 0.3]
    assert sweep_values("1e-4:1e-1:log4") == [1e-4, 1e-3, 1e-2, 1e-1]
    for bad in ("", "1:2", "5:1:1", "1:2:0", "0:1:log3", "a:b:c"):
        with pytest.raises(ConfigError):
            sweep_values(bad)
    points = sweep_configs(RunConfig(), {"optimizer.lr": [0.01, 0.1], "train.batch_size": [32, 64]})
    assert [(c.optimizer.params["lr"], c.train.batch_size) for c, _ in points] == \
        [(0.01, 32), (0.01, 64), (0.1, 32), (0.1, 64)]
    assert points[1][1] == "lr=0.01 · batch_size=64"
    with pytest.raises(ConfigError):
        sweep_configs(RunConfig(), {"train.epochs": [0]})
    assert sweep_values("[16],[64, 64]") == [[16], [64, 64]]
    points = sweep_configs(RunConfig(), {"optimizer.name": sweep_values("sgd, adam"),
                                         "model.widths": sweep_values("[16],[64, 64]")})
    assert [(c.optimizer.name, c.model.params["widths"]) for c, _ in points] == \
        [("sgd", [16]), ("sgd", [64, 64]), ("adam", [16]), ("adam", [64, 64])]
    assert points[1][1] == "optimizer=sgd · widths=[64, 64]"
