import subprocess
import sys

import pytest

from studio.core.contracts.registry import Entry, Param, Registry
from studio.core.datasets import DATASETS
from studio.core.errors import ConfigError
from studio.core.models import MODELS
from studio.core.optim import OPTIMIZERS, SCHEDULES


def test_issue_minimum_entries_exist():
    for name in ("fashion_mnist_small", "spiral", "moons", "circles", "xor", "gaussian"):
        assert name in DATASETS
    for name in ("linear", "mlp", "cnn"):
        assert name in MODELS
    for name in ("sgd", "adam"):
        assert name in OPTIMIZERS
    for name in ("constant", "cosine", "warmup"):
        assert name in SCHEDULES


def test_every_entry_is_described_and_its_defaults_validate():
    for reg, section in ((DATASETS, "data"), (MODELS, "model"), (OPTIMIZERS, "optimizer"), (SCHEDULES, "schedule")):
        for entry in reg:
            assert entry.description and entry.builder, entry.name
            assert reg.resolve(entry.name, {}, section) == entry.defaults()


def test_resolve_coerces_and_refuses():
    reg = Registry("thing")
    reg.add(Entry("a", "an a", (Param("n", "int", 3, low=1, high=5), Param("on", "bool", False)), builder="x:y"))
    assert reg.resolve("a", {"n": "4", "on": "true"}, "s") == {"n": 4, "on": True}
    with pytest.raises(ConfigError, match="between 1 and 5"):
        reg.resolve("a", {"n": 9}, "s")
    with pytest.raises(ConfigError, match="not a parameter"):
        reg.resolve("a", {"m": 1}, "s")
    with pytest.raises(ValueError):
        reg.add(Entry("a", "twice"))


def test_registries_import_without_torch():
    code = ("import sys; import studio.core.config, studio.core.datasets, studio.core.models, studio.core.optim;"
            "from studio.core.config import RunConfig; RunConfig.from_dict({});"
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
