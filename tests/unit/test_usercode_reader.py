"""The ast reader of a user's file: its models and datasets (classes, nested classes, factories), their
arguments (annotations, defaults, unannotated ones), and the one-sentence errors (missing file, syntax error with
its line, no model) — all without importing the file or torch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from studio.core.usercode.arguments import REQUIRED
from studio.core.usercode.errors import UserCodeError
from studio.core.usercode.reader import CLASS, DATASET, FACTORY, MODEL, read_file, read_source

SOURCE = '''
import torch
from torch import nn
from torch.utils.data import Dataset
from typing import Literal, Optional


class Block(nn.Module):
    """A residual block."""

    def __init__(self, width: int = 64, act: Literal["relu", "gelu"] = "relu", scale: float = 0.5,
                 norm: bool = True, name: str = "b", sizes: list[int] = [8, 8], depth: Optional[int] = None,
                 fn=torch.relu, *rest, **extra):
        super().__init__()


class Deep(Block):
    pass


class Zoo:
    class Net(torch.nn.Module):
        def __init__(self, input_shape, num_classes, hidden):
            super().__init__()


class NotAModel:
    def __init__(self, x: int = 1):
        pass


class Pairs(Dataset):
    def __init__(self, split: str = "train", n=100):
        pass


def make_model(width: int = 32) -> nn.Module:
    return Block(width)


def build(depth=2):
    return Deep()


def datasets(n: int = 10):
    return Pairs("train", n), Pairs("test", n)


def helper(x):
    return x + 1
'''


def test_finds_models_datasets_and_factories_in_file_order() -> None:
    code = read_source(SOURCE, "net.py")
    found = [(d.name, d.role, d.form) for d in code.definitions]
    assert found == [
        ("Block", MODEL, CLASS), ("Deep", MODEL, CLASS), ("Zoo.Net", MODEL, CLASS), ("Pairs", DATASET, CLASS),
        ("make_model", MODEL, FACTORY), ("build", MODEL, FACTORY), ("datasets", DATASET, FACTORY),
    ]
    assert code.get("Block", MODEL).doc == "A residual block."
    assert code.get("Block", MODEL).line == 8


def test_arguments_from_annotations_and_defaults() -> None:
    block = read_source(SOURCE).get("Block", MODEL)
    kinds = {a.name: (a.kind, a.default) for a in block.arguments}
    assert kinds == {"width": ("int", 64), "act": ("choice", "relu"), "scale": ("float", 0.5),
                     "norm": ("bool", True), "name": ("str", "b"), "sizes": ("ints", [8, 8]),
                     "depth": ("int", None)}  # fn (not a plain default), *rest and **extra are left out
    assert block.argument("act").choices == ("relu", "gelu")  # type: ignore[union-attr]


def test_a_subclass_takes_its_base_init_and_unannotated_arguments_are_text_or_their_default_type() -> None:
    code = read_source(SOURCE)
    assert [a.name for a in code.get("Deep", MODEL).arguments] == [a.name for a in code.get("Block", MODEL).arguments]
    net = code.get("Zoo.Net", MODEL)
    hidden = net.argument("hidden")
    assert hidden is not None and hidden.kind == "any" and hidden.default is REQUIRED and hidden.required
    assert [a.name for a in net.arguments if a.from_data] == ["input_shape", "num_classes"]
    assert code.get("build", MODEL).argument("depth").kind == "int"  # type: ignore[union-attr]
    assert code.get("Pairs", DATASET).argument("n").kind == "int"  # type: ignore[union-attr]


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import torch\n\nclass Net(nn.Module:\n    pass\n")
    with pytest.raises(UserCodeError, match=r"^broken.py line 3: .*fix the syntax error there"):
        read_file(path)


def test_missing_file_no_model_and_unknown_class(tmp_path: Path) -> None:
    with pytest.raises(UserCodeError, match=r"^no such file: .*nothere.py$"):
        read_file(tmp_path / "nothere.py")
    plain = tmp_path / "plain.py"
    plain.write_text("def f(x):\n    return x\n")
    with pytest.raises(UserCodeError, match="plain.py defines no model: Studio looks for an nn.Module subclass"):
        read_file(plain).get("Net", MODEL)
    code = read_source(SOURCE, "net.py")
    with pytest.raises(UserCodeError, match=r"net.py has no model called 'Nett'; it has: Block, Deep, Zoo.Net"):
        code.get("Nett", MODEL)
    with pytest.raises(UserCodeError, match="Pairs in net.py is a dataset, not a model"):
        code.get("Pairs", MODEL)


def test_reading_never_imports_the_file_or_torch(tmp_path: Path) -> None:
    path = tmp_path / "side_effect.py"
    marker = tmp_path / "ran"
    path.write_text(f"open({str(marker)!r}, 'w').close()\nimport torch\nclass Net(torch.nn.Module):\n    pass\n")
    had_torch = "torch" in sys.modules
    assert [d.name for d in read_file(path).definitions] == ["Net"]
    assert not marker.exists()
    assert ("torch" in sys.modules) == had_torch


def test_the_shipped_example_reads_and_its_config_checks() -> None:
    from studio.core.config import RunConfig
    from studio.core.config.data_fit import check_model_data
    from studio.core.host.paths import resource

    code = read_file(resource("examples", "my_model.py"))
    assert [(d.name, d.role) for d in code.definitions] == [("SmallCNN", MODEL), ("make_mlp", MODEL),
                                                            ("Stripes", DATASET)]
    assert [a.name for a in code.get("SmallCNN", MODEL).arguments if not a.from_data] == ["filters", "dropout",
                                                                                           "activation"]
    config = RunConfig.load(resource("examples", "my_model.toml"))
    assert config.model.params["path"] == str(resource("examples", "my_model.py").resolve())
    check_model_data(config)
