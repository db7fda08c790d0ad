"""The run filter language (core/runs/run_filter.py): plain words, key:value, comparisons, bad expressions, sorting."""

import pytest

from studio.core.errors import ConfigError
from studio.core.runs.run_filter import RunFacts, known_keys, parse, sort_runs

RUNS = [
    RunFacts("20260101-a1", "mlp adam", "finished", 3.0, ("baseline",), "noisy labels",
             {"data.name": "moons", "model.name": "mlp", "optimizer.name": "adam", "optimizer.lr": 0.1,
              "model.widths": [64, 64]},
             {"test_acc": 0.91, "epochs": 10, "steps": 500}),
    RunFacts("20260102-b2", "cnn sgd", "failed", 2.0, ("sweep",), "",
             {"data.name": "fashion_mnist_small", "model.name": "cnn", "optimizer.name": "sgd", "optimizer.lr": 0.01},
             {"test_acc": 0.75, "epochs": 3}),
    RunFacts("20260103-c3", "Mlp sgd", "running", 1.0, (), "try Baseline again",
             {"data.name": "moons", "model.name": "mlp", "optimizer.name": "sgd", "optimizer.lr": 0.1}, {}),
]


def ids(expr: str) -> list[str]:
    return [f.id[-2:] for f in parse(expr, known_keys(RUNS)).select(RUNS)]


def test_plain_words_match_every_field_case_insensitively_and_all_must_match():
    assert ids("") == ["a1", "b2", "c3"]
    assert ids("MLP") == ["a1", "c3"]
    assert ids("baseline") == ["a1", "c3"]  # a tag, and a word of the notes
    assert ids("mlp sgd") == ["c3"]
    assert ids("fashion") == ["b2"] and ids("20260102") == ["b2"] and ids("fail") == ["b2"]
    assert ids('"noisy labels"') == ["a1"] and ids("nothing-like-this") == []


def test_fields_and_settings():
    assert ids("status:finished") == ["a1"] and ids("status:fin") == []  # a whole status
    assert ids("model:mlp") == ["a1", "c3"] and ids("optim:sgd") == ["b2", "c3"] and ids("data:moons") == ["a1", "c3"]
    assert ids("tag:baseline") == ["a1"] and ids("tag:base") == []  # a whole tag, not the notes
    assert ids("optim.lr:0.1") == ["a1", "c3"] and ids("optimizer.lr:0.010") == ["b2"]
    assert ids("model.widths:64,64") == ["a1"]
    assert ids("model=cnn") == ["b2"] and ids("model!=cnn") == ["a1", "c3"]


def test_comparisons_on_numbers_leave_out_runs_without_the_value():
    assert ids("test_acc>0.8") == ["a1"] and ids("test_acc<=0.91") == ["a1", "b2"]
    assert ids("epochs>=10") == ["a1"] and ids("epochs!=3") == ["a1"]
    assert ids("optim.lr<0.05") == ["b2"] and ids("test_acc>0.5 tag:sweep") == ["b2"]


@pytest.mark.parametrize("expr, words", [
    ("test_acc>high", "'high' is not a number"),
    ("test_acc>", "needs a number"),
    (">0.8", "compares nothing"),
    ("status:", "needs a key and a value"),
    ("optim.momentum:0.9", "unknown field or setting 'optim.momentum'"),
    ("accuracy>0.5", "unknown number 'accuracy'"),
    ('"unclosed', "close the quote"),
])
def test_a_bad_expression_is_one_sentence(expr, words):
    with pytest.raises(ConfigError) as err:
        parse(expr, known_keys(RUNS))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_sort_numbers_as_numbers_text_as_text_empty_last_either_way():
    def order(column, descending=False):
        return [f.id[-2:] for f in sort_runs(RUNS, column, descending)]

    assert order("test_acc") == ["b2", "a1", "c3"] and order("test_acc", True) == ["a1", "b2", "c3"]
    assert order("Started") == ["c3", "b2", "a1"]  # by creation time
    assert order("Run") == ["b2", "a1", "c3"] and order("run", True) == ["c3", "a1", "b2"]
    assert order("notes") == ["a1", "c3", "b2"] and order("tags", True) == ["b2", "a1", "c3"]
    assert order("optimizer.lr") == ["b2", "a1", "c3"]
    assert order("steps") == ["a1", "b2", "c3"]  # 500 sorts as a number; the others have none
