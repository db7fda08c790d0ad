"""Trajectory landscapes from a default run: the run keeps a few float16 weight snapshots (no
train.checkpoint_every needed), and the trajectory uses them."""

from __future__ import annotations

from tests.unit.landscape_runs import train_run


def test_snapshot_epochs_are_evenly_spaced_and_leave_the_last_to_final():
    from studio.engine.callbacks.trajectory_snapshots import MAX_SNAPSHOTS, snapshot_epochs

    assert snapshot_epochs(1) == set()
    assert snapshot_epochs(5) == {1, 2, 3, 4}
    many = snapshot_epochs(100)
    assert len(many) <= MAX_SNAPSHOTS and 100 not in many and max(many) >= 90


def test_a_run_with_default_checkpointing_gives_a_trajectory(tmp_path):
    import torch

    from studio.engine.replay import list_checkpoints, list_snapshots, load_checkpoint
    from studio.engine.tasks.landscape import compute_landscape

    run_dir = train_run(tmp_path, ["data.name=moons", "data.n_samples=400", "model.widths=16,16",
                                   "train.batch_size=32", "train.epochs=3", "optimizer.lr=0.01"])
    assert [r.step for r in list_checkpoints(run_dir)] in ([0, 36], [36])  # start (unless pruned) and end only
    snaps = list_snapshots(run_dir)
    assert [r.step for r in snaps] == [0, 12, 24]  # the start and epochs 1, 2
    state = load_checkpoint(snaps[1].path)
    assert "optimizer" not in state and all(t.dtype == torch.float16 for t in state["model"].values()
                                            if t.is_floating_point())
    land, _ = compute_landscape(run_dir, "trajectory", resolution=5, samples=200, save=False, device="cpu")
    assert land.meta["steps"] == [0, 12, 24, 36]  # snapshots, then the end checkpoint (the final weights)
    assert land.path.shape == (4, 2) and abs(land.path[-1]).max() == 0 and abs(land.path[1]).max() > 0


def test_snapshots_can_be_switched_off():
    from studio.core.config import RunConfig
    from studio.engine.callbacks.trajectory_snapshots import TrajectorySnapshots, snapshot_callbacks

    assert [type(c) for c in snapshot_callbacks(RunConfig(), "/tmp/run")] == [TrajectorySnapshots]
    assert snapshot_callbacks(RunConfig().with_overrides(["train.trajectory_snapshots=false"]), "/tmp/run") == []
