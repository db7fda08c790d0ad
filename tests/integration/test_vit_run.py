"""A vit run through the real command line: train, resume, a landscape, and attention at its snapshots."""

from __future__ import annotations

import json

import pytest

from studio.cli import main as cli_main
from studio.core.contracts import layout

TINY = ["model.name=vit", "model.d_model=16", "model.depth=1", "model.heads=2", "model.patch=14",
        "train.batch_size=1000", "train.histogram_every=0", "train.attention_every=5"]


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.slow
def test_vit_trains_resumes_and_takes_a_landscape_from_the_cli(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    sets = [a for s in [*TINY, "train.epochs=1"] for a in ("--set", s)]
    assert cli_main(["train", *sets, "--json"]) == 0
    first = _json(capsys)
    assert first["status"] == "finished" and first["steps"] == 9 and first["test_acc"] > 0.2
    run_dir = first["run_dir"]
    assert cli_main(["train", "--resume", first["run_id"], "--set", "train.epochs=2", "--json"]) == 0
    resumed = _json(capsys)
    assert resumed["status"] == "finished" and resumed["steps"] == 18
    assert [r.step for r in layout.list_attention(run_dir)] == [0, 5, 9, 10, 15, 18]
    assert cli_main(["landscape", first["run_id"], "--kind", "1d", "--resolution", "3", "--samples", "64",
                     "--quiet", "--json"]) == 0
    land = _json(capsys)
    assert land["kind"] == "1d" and land["resolution"] == 3 and land["min_loss"] <= land["center_loss"]
    assert cli_main(["attention", first["run_id"], "--image", "2", "--json"]) == 0
    out = _json(capsys)
    assert out["kind"] == "image" and out["grid"] == [2, 2] and out["tokens"] == ["[CLS]", "0,0", "0,1", "1,0", "1,1"]
    assert abs(sum(map(sum, out["patch_rollout"])) - 1) < 1e-4
    assert cli_main(["train", "--set", "model.name=vit", "--set", "model.patch=5", "--json"]) == 2
    assert "patch (5) must divide the image size (28×28)" in capsys.readouterr().err
