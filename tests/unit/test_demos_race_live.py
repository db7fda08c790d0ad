"""The live race: racers step together, a frame a step, and a racer's learning rate changes while they race."""

from __future__ import annotations

import numpy as np

from studio.core.demos.live import LiveLoop


class Script:
    """A fake ``controls``: one scripted command list per call, then nothing."""

    def __init__(self, calls):
        self.calls = list(calls)

    def __call__(self, wait_s=0.0):
        return self.calls.pop(0) if self.calls else []


def test_an_lr_change_mid_race_acts_from_the_next_step(monkeypatch):
    from studio.core.demos import race

    monkeypatch.setattr(race, "LiveLoop", lambda controls, fps: LiveLoop(controls, fps=0))  # one read a frame
    frames = []
    script = Script([[], [], [], [], [], [("set", {"lr_scale": {"0": 0.0, "1": 2.0}})]])
    result = race.run(optimizers="gd(lr=0.5); gd(lr=0.5); gd(lr=0.5)", steps=12, emit=frames.append,
                      controls=script)
    steps = [f["step"] for f in frames if "step" in f and "points" in f]
    assert steps == list(range(1, 13))  # a frame a step, streamed
    assert "labels" in frames[0]["setup"]
    changed = next(f for f in frames if "lr_scale" in f)
    assert changed["step"] == 6 and changed["lr_scale"] == {0: 0.0, 1: 2.0}
    paths = result["paths"]
    assert np.array_equal(paths[0, 5], paths[0, 12])  # lr × 0 from step 6: it stopped where it was
    assert not np.array_equal(paths[2, 5], paths[2, 12])  # the untouched racer went on
    # racer 1 at lr 1.0 on the steep axis (λ = 1): y is zeroed in one step; racer 2 (lr 0.5) halves it
    assert paths[1, 6, 1] == 0.0 and paths[2, 6, 1] == 0.5 * paths[2, 5, 1]
    np.testing.assert_array_equal(paths[2], race.run(optimizers="gd(lr=0.5)", steps=12)["paths"][0])
    assert [f["points"][2] for f in frames if "points" in f][-1].tolist() == paths[2, 12].tolist()
