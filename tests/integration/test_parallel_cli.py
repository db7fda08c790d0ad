"""`studio parallel` end to end on 2 rank processes: all five modes follow the single process's loss curve
(the same maths), with measured timelines, bubbles beside the theory and memory per rank; bad input exits 2
with one sentence before any process starts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from studio.cli.parallel import format_table
from studio.core.contracts.parallel import KINDS

QUICK = ["--ranks", "2", "--widths", "32,32,32", "--batch-size", "16", "--steps", "6", "--warmup-steps", "1",
         "--timeline-steps", "2"]


def studio(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "studio", "parallel", "--quiet", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.slow
def test_five_modes_follow_one_curve_with_timelines_and_memory() -> None:
    done = studio(*QUICK, "--microbatches", "2,4", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    rows = out["rows"]
    assert [(r["mode"], r["microbatches"]) for r in rows] == [
        ("single", 1), ("ddp", 1), ("model", 1), ("pipeline-gpipe", 2), ("pipeline-gpipe", 4),
        ("pipeline-1f1b", 2), ("pipeline-1f1b", 4)]
    # the 784-wide input layer outweighs the other three
    assert out["equal_curves"] is True and out["stages"] == [["fc1"], ["fc2", "fc3", "fc4"]]
    single = rows[0]
    for r in rows:
        assert len(r["losses"]) == 6 and r["losses"][-1][0] == 6 * 16
        assert r["max_loss_gap"] <= out["loss_tolerance"], r["mode"]
        assert r["samples_per_s"] > 0 and r["step_ms"] > 0
        lanes = {i["rank"] for i in r["timeline"]}
        assert lanes == ({0} if r["mode"] == "single" else {0, 1})
        assert {i["kind"] for i in r["timeline"]} <= set(KINDS)
        assert all(i["end"] >= i["start"] >= 0 for i in r["timeline"])
        assert {"forward", "backward", "optimizer"} <= {i["kind"] for i in r["timeline"]}
        assert len(r["cpu_share"]) == len(lanes) and all(0 < s <= 1.05 for s in r["cpu_share"])
    params = single["memory"][0]["parameters"]
    ddp, model = rows[1], rows[2]
    assert [m["parameters"] for m in ddp["memory"]] == [params, params]
    assert "allreduce" in {i["kind"] for i in ddp["timeline"]}
    assert sum(m["parameters"] for m in model["memory"]) == params  # each rank holds its stage only
    assert {"send", "recv"} <= {i["kind"] for i in model["timeline"]}
    for r in rows[2:]:
        assert 0 < r["bubble"] < 1 and r["bubble_theory"] == pytest.approx(1 / (r["microbatches"] + 1))
        assert len(r["busy"]) == 2
    gpipe4, onef4 = rows[4], rows[6]
    # GPipe keeps all 4 micro-batches' activations on the first stage; 1F1B at most 2 (p) of them
    assert onef4["memory"][0]["activations"] < gpipe4["memory"][0]["activations"]
    table = format_table(out)
    assert "pipeline-1f1b" in table and "×single" in table and "the same curve" in table


@pytest.mark.parametrize(("args", "sentence"), [
    (["--modes", "single,tensor"], "unknown mode 'tensor'"),
    (["--ranks", "0"], "ranks must be at least 1"),
    (["--ranks", "3", "--widths", "16", "--modes", "model"], "3 ranks but the model has 2 layers to split"),
    (["--modes", "pipeline-gpipe", "--microbatches", "128", "--batch-size", "64"],
     "128 micro-batches but the batch has only 64 samples"),
    (["--microbatches", "two"], "--microbatches takes whole numbers"),
    # issue 39.4: NaN trained NaN curves and said "the same curve"; a 2,000,000-wide layer allocated until killed
    (["--lr", "nan"], "the learning rate must be a positive number (not nan)"),
    (["--lr", "inf"], "the learning rate must be a positive number (not inf)"),
    (["--widths", "2000000,2000000"], "the lab's MLP of widths 2000000,2000000 needs at least"),
])
def test_bad_input_exits_2_with_one_sentence(args, sentence) -> None:
    done = studio(*args)
    assert done.returncode == 2, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("studio: error: ") and sentence in lines[0], done.stderr


@pytest.mark.slow
@pytest.mark.cuda(devices=2,
                  reason="needs 2 GPUs (one per rank, NCCL): written, not run on this machine")
def test_five_modes_on_two_gpus() -> None:
    done = studio(*QUICK, "--microbatches", "2", "--device", "cuda", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["equal_curves"] and all(m["device_peak"] for r in out["rows"] for m in r["memory"])
