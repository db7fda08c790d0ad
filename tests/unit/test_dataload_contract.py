"""The input-pipeline sweep's contract (worker counts, limits: one sentence each) and its verdict's wording at
the thresholds (core/maths/data_stalls.py)."""

from __future__ import annotations

import pytest

from studio.core.contracts.dataload import DataloadRequest, parse_workers, validate
from studio.core.errors import ConfigError
from studio.core.maths.data_stalls import BOTTLENECK, MINOR, gpu_line, verdict
from studio.engine.dataload.sweep import finish


def row(label: str, share: float, samples: float, kind: str = "loader", workers: int = 0, **extra) -> dict:
    step = 10.0
    return {"kind": kind, "label": label, "workers": workers, "samples_per_s": samples, "wait_share": share,
            "wait_ms": share * step, "compute_ms": (1 - share) * step, "step_ms": step, "speedup": 1.0,
            "gpu_util": None, "pin_memory": None, "persistent": None, "epoch_start_ms": 0.0, **extra}


def test_worker_counts_are_parsed_sorted_and_unique():
    assert parse_workers("4, 0,2,2") == (0, 2, 4)
    assert parse_workers("1") == (1,)


@pytest.mark.parametrize("text, words", [("a,b", "whole numbers"), ("0,-1", "from 0"), ("0,65", "to 64"),
                                         ("", "at least one"), ("2.5", "whole numbers")])
def test_bad_worker_counts_are_one_sentence(text, words):
    with pytest.raises(ConfigError, match=words) as err:
        parse_workers(text)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("changes, words", [
    ({"folder": "", "dataset": ""}, "either a folder"),
    ({"dataset": "x"}, "not both"),
    ({"batch_size": 0}, "batch size"),
    ({"steps": 3, "epochs": 2}, "at least 2 per epoch"),
    ({"prefetch_factor": 0}, "prefetch factor"),
    ({"device": "tpu"}, "auto, cpu or cuda"),
    ({"size": (0, 8)}, "1 to 1024"),
    ({"workers": "x"}, "whole numbers"),
])
def test_out_of_range_requests_are_refused(changes, words):
    with pytest.raises(ConfigError, match=words):
        validate(DataloadRequest(**{"folder": "/data", **changes}))


def test_validate_normalises_the_worker_list():
    assert validate(DataloadRequest(folder="/data", workers="2,0")).workers == "0,2"


def test_default_model_is_small_and_other_models_keep_their_defaults():
    assert DataloadRequest().params == {"widths": [128]}
    assert DataloadRequest(model="lenet5").params == {}
    assert DataloadRequest(model="mlp", model_params={"widths": [8]}).params == {"widths": [8]}


def test_a_stalled_loader_is_called_the_bottleneck_with_its_share_and_the_fixes():
    rows = [row("0 workers", 0.63, 100.0), row("2 workers", 0.2, 180.0, workers=2, speedup=1.8),
            row("device-resident", 0.01, 400.0, kind="device")]
    words, bottleneck = verdict(rows)
    assert bottleneck
    assert words.startswith("the model waited 63 % of each step for data with 0 workers: preload or add workers")
    assert "2 workers: 20 % waiting, 1.8× the samples/s" in words
    assert "preloaded on the device: 1 % waiting, 4.0× the samples/s" in words


@pytest.mark.parametrize("share, start, bottleneck", [
    (BOTTLENECK, "the model waited 30 %", True),
    (BOTTLENECK - 0.01, "data costs a little", False),
    (MINOR, "data costs a little", False),
    (MINOR - 0.01, "data is not the bottleneck", False),
])
def test_verdict_thresholds(share, start, bottleneck):
    words, is_bottleneck = verdict([row("0 workers", share, 100.0)])
    assert words.startswith(start) and is_bottleneck == bottleneck


def test_not_the_bottleneck_names_compute_and_no_fix_that_cannot_help():
    words, _ = verdict([row("0 workers", 0.04, 100.0), row("4 workers", 0.03, 101.0, workers=4)])
    assert "only 4 %" in words and "compute (9.6 ms a step) sets the pace" in words
    assert "4 workers:" not in words  # 1 % faster is no fix worth naming


def test_finish_adds_speedups_against_the_first_loader_row_and_a_capitalised_verdict():
    result = {"rows": [row("0 workers", 0.7, 100.0), row("1 worker", 0.5, 150.0, workers=1),
                       row("device-resident", 0.0, 500.0, kind="device", gpu_util=None)]}
    out = finish(result)
    assert [r["speedup"] for r in out["rows"]] == [1.0, 1.5, 5.0]
    assert out["verdict"].startswith("The model waited 70 %") and out["bottleneck"] is True


def test_gpu_line_lists_the_sampled_configurations_only():
    rows = [row("0 workers", 0.6, 1.0, gpu_util=31.0), row("4 workers", 0.1, 2.0, gpu_util=88.4),
            row("device-resident", 0.0, 3.0, kind="device")]
    assert gpu_line(rows) == "GPU utilisation 31 % with 0 workers, 88 % with 4 workers"
    assert gpu_line([row("0 workers", 0.6, 1.0)]) == ""


def test_workers_starved_of_cores_are_said_to_be():
    rows = [row("0 workers", 0.8, 100.0, cpu_cores=0.9), row("2 workers", 0.8, 104.0, workers=2, cpu_cores=1.0)]
    words, _ = verdict(rows)
    assert words.endswith("— the workers got at most 1.0 cores: this machine had none to spare.")
    rows[1]["cpu_cores"] = 1.9
    assert "none to spare" not in verdict(rows)[0]


def test_persistent_workers_note_the_epoch_start_they_save():
    from studio.engine.dataload.sweep import persistent_notes

    rows = [row("0 workers", 0.6, 100.0, epoch_start_ms=9.0),
            row("2 workers", 0.5, 110.0, workers=2, persistent=False, epoch_start_ms=210.0),
            row("2 workers, persistent", 0.4, 130.0, workers=2, persistent=True, epoch_start_ms=31.0)]
    assert persistent_notes(rows) == ["with 2 workers, a later epoch's first batch took 31 ms with persistent "
                                      "workers against 210 ms when they are started again"]
    assert persistent_notes(rows[:1] + rows[2:]) == []  # nothing to compare with
