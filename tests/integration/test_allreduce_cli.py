"""`studio allreduce` end to end: p rank processes sum whole-number vectors with the ring, a central server and
torch's all_reduce; every rank's counted bytes equal the cost model, every result is the exact sum, each rank's
time is measured and the shown p has a timeline of its phases; bad input exits 2 with one sentence before any
process starts."""

from __future__ import annotations

import socket

import pytest

from studio.cli.allreduce import format_table
from studio.core.contracts.allreduce import KINDS
from tests.conftest import last_json, run_cli


def test_three_algorithms_bytes_on_the_model_exact_sums_and_a_timeline() -> None:
    done = run_cli("allreduce", "--quiet", "--ranks", "2,3", "--size", "4K,20K", "--repeats", "1", "--json")
    assert done.returncode == 0, done.stderr
    out = last_json(done.stdout)
    rows = out["rows"]
    assert [(r["algorithm"], r["ranks"], r["size"]) for r in rows][:3] == [("ring", 2, 4096), ("server", 2, 4096),
                                                                          ("torch", 2, 4096)]
    assert len(rows) == 2 * 2 * 3
    for r in rows:
        p, n = r["ranks"], r["size"]
        assert r["max_error"] == 0, r  # whole numbers: every partial sum exact
        assert len(r["wall_s"]) == len(r["cpu_s"]) == p and all(t > 0 for t in r["wall_s"])
        if r["algorithm"] == "ring":
            assert sum(r["sent"]) == sum(r["received"]) == 2 * (p - 1) * n  # every chunk twice round the ring
            assert all(abs(s - 2 * (p - 1) / p * n) <= 2 * (p - 1) * 4 for s in r["sent"])  # ± a float per step
        elif r["algorithm"] == "server":
            assert r["sent"] == [(p - 1) * n] + [n] * (p - 1) == r["received"]
        else:
            assert r["sent"] is None and r["model"] is None
    assert out["timeline_ranks"] == 3 and out["timeline_size"] == 20 * 1024
    ring = out["timelines"]["ring"]
    assert {i["rank"] for i in ring} == {0, 1, 2} and {i["kind"] for i in ring} <= set(KINDS)
    assert {"reduce-scatter", "all-gather", "reduce"} <= {i["kind"] for i in ring}
    assert max(i["step"] for i in ring) == 2 * (3 - 1)  # p−1 steps per phase
    assert {"send", "recv", "reduce"} <= {i["kind"] for i in out["timelines"]["server"]}
    assert all(i["end"] >= i["start"] >= 0 for t in out["timelines"].values() for i in t)
    table = format_table(out)
    assert "ring" in table and "server" in table and "load" in table


@pytest.mark.parametrize(("args", "sentence"), [
    (["--ranks", "2,9"], "9 processes is more than this lab starts (at most 8)"),
    (["--ranks", "1"], "an all-reduce needs at least 2 processes"),
    (["--ranks", "two"], "--ranks takes process counts"),
    (["--size", "1G"], "a size is a number of bytes with K or M"),
    (["--size", "128M"], "a size is 1K to 64M"),
    (["--algorithms", "ring,tree"], "unknown algorithm 'tree'"),
    (["--timeline-ranks", "3"], "process count 3 is not one of those measured"),
])
def test_bad_input_exits_2_with_one_sentence(args: list[str], sentence: str) -> None:
    done = run_cli("allreduce", "--quiet", *args)
    assert done.returncode == 2, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("studio: error: ") and sentence in lines[0], done.stderr


def test_a_port_in_use_is_one_sentence_before_any_process() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = run_cli("allreduce", "--quiet", "--ranks", "2", "--size", "4K", "--port", str(port))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"studio: error: port {port} is in use by another program; choose another port, "
                                   "or 0 for a free one")


@pytest.mark.slow
@pytest.mark.cuda(devices=2, reason="needs 2 GPUs (one per rank, NCCL): written, not run on this machine")
def test_the_ring_on_two_gpus() -> None:
    done = run_cli("allreduce", "--quiet", "--ranks", "2", "--size", "1M", "--device", "cuda", "--json")
    assert done.returncode == 0, done.stderr
    out = last_json(done.stdout)
    assert all(r["max_error"] == 0 for r in out["rows"])
    assert [r["sent"] for r in out["rows"] if r["algorithm"] == "ring"] == [[1 << 20, 1 << 20]]
