"""Transfer learning from a Studio run through the CLI (real subprocesses): an MLP trained on moons is the
parent of one on spiral (a new head for its classes, the base frozen for the first epoch, then fine-tuned);
a resume of the child needs the parent no more; a parent of another shape exits 2 before a run is created."""

from __future__ import annotations

import pytest

from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli

COMMON = ["--set", "model.name=mlp", "--set", "model.widths=16,16", "--set", "data.n_samples=300", "--set",
          "train.batch_size=32", "--set", "hardware.threads=1", "--json"]


@pytest.mark.slow
def test_an_mlp_fine_tuned_from_another_runs_weights():
    import torch

    from studio.core.contracts import layout

    parent = run_cli("train", "--set", "data.name=moons", "--set", "train.epochs=2", *COMMON)
    assert parent.returncode == 0, parent.stderr
    parent_id = last_json(parent.stdout)["run_id"]
    child = run_cli("train", "--set", "data.name=spiral", "--set", "train.epochs=2", "--set",
                    f"model.init_from={parent_id}", "--set", "model.frozen_epochs=1", *COMMON)
    assert child.returncode == 0, child.stderr
    assert "fine-tuning stage 2 from epoch 2" in child.stderr
    info = RunStore().get(last_json(child.stdout)["run_id"])
    theirs = torch.load(layout.final_path(RunStore().get(parent_id).dir), weights_only=True)["model"]
    start = torch.load(layout.checkpoint_path(info.dir, 0), weights_only=True)["model"]  # the child's first weights
    mine = {k.removeprefix("net."): v for k, v in start.items()}
    assert torch.equal(mine["1.weight"], theirs["1.weight"]) and torch.equal(mine["3.weight"], theirs["3.weight"])
    assert mine["5.weight"].shape != theirs["5.weight"].shape or not torch.equal(mine["5.weight"], theirs["5.weight"])

    before = len(RunStore().list())
    bad = run_cli("train", "--set", "data.name=spiral", "--set", f"model.init_from={parent_id}", *COMMON[:2],
                  "--set", "model.widths=32", *COMMON[4:])
    assert bad.returncode == 2 and "model.widths is 32 but run" in bad.stderr, bad.stderr
    assert len(RunStore().list()) == before  # refused before a run was created
