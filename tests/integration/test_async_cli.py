"""`studio async` end to end: 2 workers, a few updates, every mode, `--json` as the last stdout line; a port in
use is one sentence and exit 2 before any process starts."""

from __future__ import annotations

import json
import socket

import pytest

from tests.conftest import run_cli


@pytest.mark.slow  # 3 + 1 + 2 processes import torch: ~15 s on a busy 2-core machine
def test_async_json_has_every_mode_with_its_staleness_and_counts():
    res = run_cli("async", "--workers", "2", "--updates", "20", "--delays", "0,0.01", "--staleness-aware",
                  "--modes", "sync,async,hogwild", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    rows = {r["mode"]: r for r in out["rows"]}
    assert list(rows) == ["sync", "async", "async-sa", "hogwild"]
    assert out["delays"] == [0.0, 0.01] and out["port"] > 0
    sync = rows["sync"]
    assert sync["updates"] == 20 and sync["gradients"] == 40 and sync["worker_updates"] == [20, 20]
    assert sync["staleness"] == [40] and sync["max_staleness"] == 0
    for r in (rows["async"], rows["async-sa"]):
        assert r["updates"] == 20 == sum(r["staleness"]) == sum(r["worker_updates"])
        assert r["curve"][0]["update"] == 0 and r["curve"][-1]["update"] == 20
    assert rows["hogwild"]["updates"] >= 20 and sum(rows["hogwild"]["staleness"]) == rows["hogwild"]["updates"]
    assert all(r["final_loss"] < r["curve"][0]["loss"] for r in rows.values())  # every mode learned something


def test_port_in_use_is_one_sentence_before_any_process():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = run_cli("async", "--port", str(port), "--updates", "5", timeout=60)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [f"studio: error: port {port} is in use: another program (or a study "
                                               f"still running) holds it (Address already in use); pick another "
                                               f"--port, or 0 for a free one"]
    assert res.stdout == ""


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.cuda(reason="no CUDA GPU here: the server on cuda:0 is written, not run")
def test_parameter_server_on_cuda():
    res = run_cli("async", "--device", "cuda", "--workers", "2", "--updates", "10", "--modes", "sync,async",
                  "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["device"] == "cuda" and [r["updates"] for r in out["rows"]] == [10, 10]


def test_cuda_asked_for_without_a_gpu_is_one_sentence():
    if _cuda():
        pytest.skip("this machine has a GPU")
    res = run_cli("async", "--device", "cuda", "--updates", "5", timeout=60)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == ["studio: error: device cuda asked for, but this machine has no CUDA "
                                               "GPU; use cpu"]
