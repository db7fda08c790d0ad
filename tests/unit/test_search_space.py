"""The search space as people write it (``--space``), typed by the registries, and every mistake in one sentence:
a setting that does not exist (nearest names), an empty or inverted range, a range outside what the setting takes,
a range of something that is not a number, a metric no run logs, more trials than the space allows."""

from __future__ import annotations

import pytest

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.search.space import parse_space
from studio.core.search.study import SearchSpec

BASE = RunConfig().with_overrides(["data.name=moons", "train.epochs=3"])


def test_ranges_and_lists_typed_by_the_registries() -> None:
    space = parse_space(["optimizer.lr=1e-4..1e-1", "train.batch_size=32,64,128", "optimizer.weight_decay=0..0.1",
                         "model.widths=[16],[32,32]", "train.epochs=2..6", "optimizer.beta1=0.8..0.99:log"], BASE)
    lr, batch, decay, widths, epochs, beta = space.dims
    assert (lr.kind, lr.low, lr.high, lr.log) == ("float", 1e-4, 0.1, True)  # lr is log-scaled: log-uniform
    assert decay.log is False and beta.log is True  # not log-scaled unless asked
    assert batch.kind == "choice" and batch.choices == (32, 64, 128)
    assert widths.choices == ([16], [32, 32]) and widths.grid() == ["[16]", "[32, 32]"]
    assert epochs.kind == "int" and epochs.grid() == [2, 3, 4, 5, 6]
    assert lr.text() == "optimizer.lr=0.0001..0.1:log"
    config = space.apply(BASE, {"optimizer.lr": 0.003, "train.batch_size": 64, "model.widths": "[32, 32]",
                                "optimizer.weight_decay": 0.01, "train.epochs": 4, "optimizer.beta1": 0.9})
    assert config.optimizer.params["lr"] == 0.003 and config.model.params["widths"] == [32, 32]
    assert config.train.batch_size == 64 and config.data.name == "moons"  # the rest is the base's
    assert parse_space(["optimizer.lr=1e-4..1e-1:linear"], BASE).dims[0].log is False


def test_an_entry_name_is_a_choice_and_its_parameters_must_belong_to_every_entry() -> None:
    space = parse_space(["optimizer.name=sgd,momentum", "optimizer.momentum=0.5..0.99"], BASE)
    assert space.dims[0].choices == ("sgd", "momentum")
    with pytest.raises(ConfigError, match="optimizer.momentum is not a setting of optimizer sgd, adam"):
        parse_space(["optimizer.name=sgd,adam", "optimizer.momentum=0.5..0.99"], BASE)


@pytest.mark.parametrize("spec, words", [
    ("optimizer.lrr=1e-4..1e-1", "optimizer.lrr is not a setting of optimizer adam; did you mean optimizer.lr"),
    ("train.batchsize=32,64", "did you mean train.batch_size"),
    ("optimiser.lr=0.1..1", "'optimiser' is not a section a search can vary (they are data, model, optimizer, "
                            "schedule, train); did you mean optimizer?"),
    ("hardware.processes=1,2", "not a hyperparameter"),
    ("optimizer.lr=0.1..0.1", "the range optimizer.lr=0.1..0.1 is empty: give two different ends"),
    ("optimizer.lr=0.1..0.001", "is inverted: write the lower end first (optimizer.lr=0.001..0.1)"),
    ("optimizer.lr=0..0.1", "a log range needs ends above 0"),
    ("optimizer.lr=1e-9..1", "optimizer.lr takes values from 1e-07 to 100"),
    ("model.activation=0..1", "model.activation is a choice setting, not a number"),
    ("optimizer.lr=a..b", "cannot read the range"),
    ("train.epochs=1.5..3", "is a whole number"),
    ("optimizer.lr=", "has no values to search"),
    ("lr=0.1", "section.key=VALUES"),
    ("train.batch_size=big", "train.batch_size must be a whole number"),
    ("optimizer.name=adamx,sgd", "unknown optimizer 'adamx'"),
])
def test_each_mistake_is_one_sentence(spec: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_space([spec], BASE)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_no_space_or_a_setting_twice() -> None:
    with pytest.raises(ConfigError, match="at least one setting"):
        parse_space([], BASE)
    with pytest.raises(ConfigError, match="twice"):
        parse_space(["optimizer.lr=0.1,0.2", "optimizer.lr=0.3,0.4"], BASE)


def spec(space: list[str], **kw) -> SearchSpec:
    return SearchSpec("s", parse_space(space, BASE), BASE, **kw)


def test_the_metric_must_be_one_a_run_logs() -> None:
    spec(["optimizer.lr=1e-3..1e-1"], metric="val/acc").validate()
    spec(["optimizer.lr=1e-3..1e-1"], metric="my/metric", pruner="none").validate({"my/metric"})  # a run logs it
    with pytest.raises(ConfigError, match="no run logs a metric called 'val/accuracy'; did you mean val/acc"):
        spec(["optimizer.lr=1e-3..1e-1"], metric="val/accuracy").validate()
    with pytest.raises(ConfigError, match="only val/ metrics"):
        spec(["optimizer.lr=1e-3..1e-1"], metric="train/loss", pruner="asha").validate()


def test_more_trials_than_the_budget_allows() -> None:
    with pytest.raises(ConfigError, match="the grid has 6 points; 30 trials is more than it allows"):
        spec(["train.batch_size=32,64,128", "optimizer.name=sgd,adam"], sampler="grid", trials=30).validate()
    with pytest.raises(ConfigError, match="the grid sampler needs a list of values for optimizer.lr"):
        spec(["optimizer.lr=1e-3..1e-1"], sampler="grid", trials=3).validate()
    with pytest.raises(ConfigError, match="holds 3 distinct settings; 5 trials would repeat them"):
        spec(["train.batch_size=32,64,128"], trials=5).validate()
    with pytest.raises(ConfigError, match="a budget"):
        spec(["optimizer.lr=1e-3..1e-1"], trials=None).validate()
    spec(["optimizer.lr=1e-3..1e-1"], trials=None, timeout_s=60).validate()  # a time budget alone is one
    with pytest.raises(ConfigError, match="sampler is one of"):
        spec(["optimizer.lr=1e-3..1e-1"], sampler="cmaes").validate()
