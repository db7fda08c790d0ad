"""``studio dataload`` takes a dataset's settings (``--set data.KEY=VALUE``, ``--config``'s [data]): a dataset that
is code (``python``, ``hf_disk``) is measured with its file, class and arguments, as the window's Input pipeline
page does from the current config (cli/dataload.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli import build_parser
from studio.cli.dataload import request_from
from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from tests.own_code_files import write_user_files


def parse(*args: str):
    return build_parser().parse_args(["dataload", *args])


def test_a_python_dataset_takes_its_settings_from_set(tmp_path: Path):
    _, data = write_user_files(tmp_path)
    request = request_from(parse("--dataset", "python", "--set", f"data.path={data}", "--set", "data.class=Quarters",
                                 "--set", "data.args.jitter=0.1"))
    assert request.dataset == "python"
    assert request.data_params is not None
    assert (request.data_params["path"], request.data_params["class"]) == (str(data), "Quarters")
    assert request.data_params["args"] == {"jitter": 0.1}


def test_a_config_files_data_section_is_measured(tmp_path: Path):
    _, data = write_user_files(tmp_path)
    config = RunConfig().with_overrides(["data.name=python", f"data.path={data}", "data.class=Quarters"])
    config.save(tmp_path / "run.toml")
    request = request_from(parse("--config", str(tmp_path / "run.toml")))
    assert request.dataset == "python" and request.data_params is not None
    assert request.data_params["class"] == "Quarters"


def test_a_dataset_of_files_keeps_being_measured_from_its_images():
    request = request_from(parse("--dataset", "fashion_mnist_small"))
    assert (request.dataset, request.data_params) == ("fashion_mnist_small", None)


@pytest.mark.parametrize(("args", "words"), [
    (("--dataset", "python", "--set", "train.epochs=2"), "only the dataset's settings"),
    (("some_folder", "--set", "data.class=X"), "a folder has no dataset settings"),
])
def test_settings_that_do_not_apply_are_one_sentence(args, words):
    with pytest.raises(ConfigError, match=words):
        request_from(parse(*args))
