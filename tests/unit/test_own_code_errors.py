"""Bad input about a user's own model, one sentence each, before any process starts (torch-free: the config
checks the launcher, the queue and the GUI run) — and the ones only the first batch can tell, in the rank's
words: an output that does not fit the task, an exception in ``forward`` (the user's line, not Studio's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.core.config import RunConfig
from studio.core.config.data_fit import check_model_data
from studio.core.errors import ConfigError

NET = '''
import math
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, input_shape, num_classes, width: int, outputs: int = 0):
        super().__init__()
        self.fc = nn.Linear(math.prod(input_shape), width)
        self.out = nn.Linear(width, outputs or num_classes)

    def forward(self, x):
        h = torch.relu(self.fc(x.flatten(1)))
        return self.out(h)


class Broken(nn.Module):
    def __init__(self, input_shape, num_classes):
        super().__init__()
        self.fc = nn.Linear(3, num_classes)

    def forward(self, x):
        return self.fc(x.flatten(1))
'''


def config(path: Path, cls: str = "Net", **args: object) -> RunConfig:
    return RunConfig.from_dict({"model": {"name": "python", "path": str(path), "class": cls, "args": args},
                                "train": {"epochs": 1}})


@pytest.fixture
def net_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_net.py"
    path.write_text(NET)
    return path


def refused(cfg: RunConfig) -> str:
    with pytest.raises(ConfigError) as err:
        check_model_data(cfg)
    return str(err.value)


def test_a_good_file_passes(net_file: Path) -> None:
    check_model_data(config(net_file, width=16))


def test_no_such_file(tmp_path: Path) -> None:
    assert refused(config(tmp_path / "gone.py", width=1)) == f"no such file: {tmp_path / 'gone.py'}"


def test_syntax_error_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text("from torch import nn\nclass Net(nn.Module)\n    pass\n")
    assert refused(config(path)).startswith("bad.py line 2: ")


def test_no_module_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "nothing.py"
    path.write_text("x = 1\n")
    assert refused(config(path)) == ("nothing.py defines no model: Studio looks for an nn.Module subclass or a "
                                     "function that returns one")


def test_required_argument_without_a_value(net_file: Path) -> None:
    assert refused(config(net_file)) == "Net needs a value for width (model.args.width): it has no default"


def test_argument_of_the_wrong_type(net_file: Path) -> None:
    assert refused(config(net_file, width="wide")) == ("model.args.width must be a whole number (Net's width: int), "
                                                       "not 'wide'")


def test_unknown_argument_and_a_data_argument(net_file: Path) -> None:
    assert refused(config(net_file, width=4, depth=2)) == ("model.args.depth is not an argument of Net (its "
                                                           "arguments: width, outputs)")
    assert refused(config(net_file, width=4, num_classes=3)) == ("model.args.num_classes is filled in from the "
                                                                 "dataset; leave it out")


def test_a_package_the_file_imports_that_is_not_installed(tmp_path: Path) -> None:
    path = tmp_path / "needs.py"
    path.write_text("import torch\nimport surely_not_installed_pkg.sub\nclass Net(torch.nn.Module):\n    pass\n")
    assert refused(config(path)) == ("needs.py line 2 imports surely_not_installed_pkg.sub, which is not installed "
                                     "here (pip install surely_not_installed_pkg)")


def test_set_reaches_the_arguments_table(net_file: Path) -> None:
    cfg = config(net_file, width=4).with_overrides(["model.args.width=64", "model.args.outputs=10"])
    assert cfg.model.params["args"] == {"width": 64, "outputs": 10}
    assert RunConfig.from_toml(cfg.to_toml()).model.params == cfg.model.params


def test_a_relative_path_is_read_from_the_config_file_folder(net_file: Path) -> None:
    toml = net_file.parent / "run.toml"
    toml.write_text('[model]\nname = "python"\npath = "my_net.py"\nclass = "Net"\n[model.args]\nwidth = 8\n')
    assert RunConfig.load(toml).model.params["path"] == str(net_file.resolve())


# --- what only the first batch tells (in the rank; torch) ----------------------------------------------------
def first_batch_error(cfg: RunConfig) -> str:
    import torch

    from studio.engine.loop.distributed import DistContext
    from studio.engine.loop.sinks import NullSink
    from studio.engine.training.worker import build_trainer, describe_failure

    ctx = DistContext(0, 1, torch.device("cpu"))
    with pytest.raises(BaseException) as err:
        build_trainer(cfg, ctx, NullSink(), "r", "", None)
    return describe_failure(err.value, cfg)[0]


def test_an_output_that_does_not_fit_the_classes(net_file: Path) -> None:
    assert first_batch_error(config(net_file, width=8, outputs=5)) == ("Net returns (64, 5) but fashion_mnist_small "
                                                                       "has 10 classes")


def test_an_exception_in_forward_shows_the_users_line(net_file: Path) -> None:
    message = first_batch_error(config(net_file, "Broken"))
    line = NET.splitlines().index("        return self.fc(x.flatten(1))") + 1
    assert message.startswith(f"my_net.py line {line}, in forward: RuntimeError: mat1 and mat2 shapes cannot be "
                              "multiplied")
    assert message.endswith("— `return self.fc(x.flatten(1))`")
