"""The landscape contract (core/contracts/landscape.py): one set of limits, the same refusal from the CLI, the
engine and the background job."""

from __future__ import annotations

import dataclasses

import pytest

from studio.cli import main as cli_main
from studio.core.contracts import landscape as contract
from studio.core.contracts.landscape import (
    LandscapeJobRequest,
    LandscapeRequest,
    SharpnessJobRequest,
    SharpnessRequest,
)
from studio.core.errors import ConfigError
from studio.engine.tasks.landscape_job import LandscapeJob

BAD_LANDSCAPES = [
    ({"resolution": contract.RESOLUTION_MAX + 1}, ["--resolution", str(contract.RESOLUTION_MAX + 1)], "resolution"),
    ({"resolution": contract.RESOLUTION_MIN - 1}, ["--resolution", str(contract.RESOLUTION_MIN - 1)], "resolution"),
    ({"samples": -1}, ["--samples", "-1"], "samples"),
    ({"span": contract.SPAN_MAX * 2}, ["--span", str(contract.SPAN_MAX * 2)], "span"),
]
BAD_SHARPNESS = [
    ({"k": 0}, ["--k", "0"], "k must be"),
    ({"trace_samples": 0}, ["--trace-samples", "0"], "trace_samples"),
    ({"eps": 0.0}, ["--eps", "0"], "eps"),
]


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = cli_main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("fields", "argv", "word"), BAD_LANDSCAPES)
def test_a_landscape_outside_the_limits_fails_the_same_way_everywhere(capsys, tmp_path, fields, argv, word):
    from studio.engine.tasks.landscape import compute_landscape

    with pytest.raises(ConfigError) as request_err:
        LandscapeRequest(**fields).validate()
    message = str(request_err.value)
    assert word in message and "got" in message
    with pytest.raises(ConfigError) as engine_err:  # refused before the run is even read
        compute_landscape(tmp_path, **fields)
    assert str(engine_err.value) == message
    code, err = _cli(capsys, "landscape", "no-such-run", *argv)  # refused before the run is looked up
    assert code == 2 and err == f"studio: error: {message}\n"


@pytest.mark.parametrize(("fields", "argv", "word"), BAD_SHARPNESS)
def test_a_sharpness_outside_the_limits_fails_the_same_way_everywhere(capsys, tmp_path, fields, argv, word):
    from studio.engine.tasks.landscape import compute_sharpness

    with pytest.raises(ConfigError) as request_err:
        SharpnessRequest(**fields).validate()
    message = str(request_err.value)
    assert word in message
    with pytest.raises(ConfigError) as engine_err:
        compute_sharpness(tmp_path, **fields)
    assert str(engine_err.value) == message
    code, err = _cli(capsys, "sharpness", "no-such-run", *argv)
    assert code == 2 and err == f"studio: error: {message}\n"


def test_the_limits_themselves_are_accepted():
    for resolution in (None, contract.RESOLUTION_MIN, contract.RESOLUTION_MAX):
        assert LandscapeRequest(resolution=resolution).validate().points in (
            contract.DEFAULT_RESOLUTION, contract.RESOLUTION_MIN, contract.RESOLUTION_MAX)
    LandscapeRequest(samples=contract.SAMPLES_MAX, span=contract.SPAN_MIN).validate()
    SharpnessRequest(k=contract.K_MAX, trace_samples=contract.TRACE_SAMPLES_MIN).validate()


def test_unknown_kinds_splits_and_options_are_refused_in_words():
    with pytest.raises(ConfigError, match="choose one of 1d, 2d, trajectory"):
        LandscapeRequest(kind="3d").validate()
    with pytest.raises(ConfigError, match="choose one of train, val, test"):
        SharpnessRequest(split="holdout").validate()
    with pytest.raises(ConfigError, match="unknown landscape option"):
        LandscapeRequest.from_options({"resolutoin": 5})


def test_the_job_carries_the_request_as_it_is():
    request = LandscapeJobRequest("/nowhere", LandscapeRequest(kind="1d", resolution=5, samples=100, threads=3))
    job = LandscapeJob(request)
    assert job.request is request and job.kwargs == {"request": request}  # nothing rebuilt from a dict
    assert (job.kind, job.label, job.frames, job.requested_threads) == ("landscape", "landscape", True, 3)
    sharp = LandscapeJob(SharpnessJobRequest("/nowhere", SharpnessRequest(k=2)), threads=1)
    assert (sharp.kind, sharp.frames, sharp.requested_threads) == ("sharpness", False, 1)
    with pytest.raises(TypeError, match="not a dict"):
        LandscapeJob({"kind": "1d"})  # type: ignore[arg-type]
    assert dataclasses.replace(request.request, threads=2) != request.request  # frozen, compared by value
