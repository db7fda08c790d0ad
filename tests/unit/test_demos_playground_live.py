"""The live playground: parameter changes act on the running training (no restart), pause/step/resume, and the
MLP surgery behind a width or depth change."""

from __future__ import annotations

from functools import partial

import pytest

from studio.core.contracts.progress import Cancelled
from studio.core.demos.catalog import DEMOS
from studio.core.demos.live import LiveLoop

SMALL = {"dataset": "moons", "n_samples": 200, "resolution": 16, "frame_every": 10}


def state(**params):
    from studio.core.demos import playground

    values = DEMOS.resolve("playground", {**SMALL, **params}, "demo")
    return playground.Playground(values)


def weights(s):
    return [p.detach().clone() for p in s.model.parameters()]


def test_after_lr_zero_the_weights_stop_changing():
    import torch

    s = state()
    s.train(20)
    before = weights(s)
    s.train(5)
    assert any(not torch.equal(a, b) for a, b in zip(before, weights(s), strict=True))  # it was learning
    notes = s.apply({"lr": 0.0})
    assert notes and "lr 0" in notes[0]
    frozen = weights(s)
    s.train(30)
    assert all(torch.equal(a, b) for a, b in zip(frozen, weights(s), strict=True))
    s.apply({"lr": 0.03})
    s.train(5)
    assert any(not torch.equal(a, b) for a, b in zip(frozen, weights(s), strict=True))


def test_adding_a_neuron_grows_the_width_and_the_loss_goes_on_from_where_it_was():
    import torch

    s = state()
    initial = s.frame()["train_loss"]
    s.train(300)
    trained = s.frame()["train_loss"]
    assert trained < 0.5 * initial
    kept = s.layers[0].weight.detach().clone()
    notes = s.apply({"widths": "17,16"})
    assert s.widths == [17, 16] and s.layers[0].out_features == 17 and s.layers[1].in_features == 17
    assert torch.equal(s.layers[0].weight[:16], kept)  # the old units keep their weights
    after = s.frame()["train_loss"]
    assert after == pytest.approx(trained, rel=0.05, abs=0.01), (initial, trained, after)
    assert "16,16 → 17,16" in notes[0]
    s.train(100)  # and it trains on with the new unit (Adam's moments carried over, padded)
    assert s.frame()["train_loss"] < 0.5 * initial and s.layers[0].weight.grad[16].abs().sum() > 0


def test_a_new_relu_layer_starts_as_the_identity_and_a_removed_one_changes_the_depth():
    s = state(activation="relu")
    s.train(200)
    before = s.frame()
    s.apply({"widths": "16,16,16"})
    assert s.widths == [16, 16, 16] and len(s.layers) == 4
    after = s.frame()
    assert after["train_loss"] == pytest.approx(before["train_loss"], rel=0.05, abs=0.01)
    s.apply({"widths": "8"})
    assert s.widths == [8] and s.layers[1].in_features == 8
    s.train(20)  # still trains


def test_activation_and_dropout_keep_the_weights():
    import torch

    s = state()
    s.train(50)
    kept = weights(s)
    s.apply({"activation": "relu", "dropout": 0.2})
    assert any(isinstance(m, torch.nn.ReLU) for m in s.model) and any(isinstance(m, torch.nn.Dropout)
                                                                       for m in s.model)
    assert all(torch.equal(a, b) for a, b in zip(kept, weights(s), strict=True))


def test_noise_draws_the_same_points_with_new_noise_and_keeps_the_weights():
    import torch

    s = state(noise=0.0)
    x0 = s.xtr.clone()
    kept = weights(s)
    s.apply({"noise": 0.3})
    again = state(noise=0.3)
    assert torch.equal(s.xtr, again.xtr) and not torch.equal(s.xtr, x0)  # the same seed, new noise
    assert all(torch.equal(a, b) for a, b in zip(kept, weights(s), strict=True))


class Script:
    """A fake ``controls``: hands out one scripted list of commands per call, then stops the run."""

    def __init__(self, calls):
        self.calls = list(calls)

    def __call__(self, wait_s=0.0):
        if not self.calls:
            raise Cancelled("stop")
        return self.calls.pop(0)


def test_the_live_run_applies_changes_pauses_and_steps(monkeypatch):
    from studio.core.demos import playground

    monkeypatch.setattr(playground, "LiveLoop", partial(LiveLoop, fps=0))  # unpaced: one command list per turn
    frames = []
    values = DEMOS.resolve("playground", SMALL, "demo")
    script = Script([[], [("set", {"lr": "1e-5", "widths": "16,17"})], [("pause", {})], [], [("step", {})], [],
                     [("resume", {})]])
    with pytest.raises(Cancelled):
        playground.run(**values, emit=frames.append, controls=script)
    shots = [f for f in frames if "p" in f]
    assert shots[0]["step"] == 0 and shots[1]["step"] == 10  # a frame of frame_every steps per turn
    changed = next(f for f in shots if "notes" in f)
    assert changed["widths"] == [16, 17] and any("lr 1e-05" in n for n in changed["notes"])
    assert {"paused": True, "step": changed["step"]} in frames  # pause: the view is told
    assert [f["step"] for f in shots][-2:] == [changed["step"] + 10, changed["step"] + 20]  # a step, then resume


def test_a_change_while_paused_is_drawn_without_training():
    loop = LiveLoop(Script([[("pause", {})], [], [("set", {"noise": 0.5})]]), fps=0)
    assert loop.next_frame() == ({"noise": 0.5}, False) and loop.paused


def test_the_fixed_run_is_unchanged_without_controls():
    from studio.core.demos import playground

    result = playground.run(**DEMOS.resolve("playground", {**SMALL, "steps": 30}, "demo"))
    assert [f["step"] for f in result["frames"]] == [0, 10, 20, 30]


def test_resize_carries_adams_state_padded():
    import torch

    from studio.core.demos import mlp_surgery

    layer_a, layer_b = torch.nn.Linear(2, 3), torch.nn.Linear(3, 2)
    model = mlp_surgery.assemble([layer_a, layer_b], "tanh", 0.0)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.randn(4, 2)).sum().backward()
    opt.step()
    layers, origin = mlp_surgery.resize([layer_a, layer_b], [4])
    new = mlp_surgery.assemble(layers, "tanh", 0.0)
    new_opt = torch.optim.Adam(new.parameters(), lr=0.1)
    mlp_surgery.carry_state(opt, new_opt, [layer_a, layer_b], layers, origin)
    moment = new_opt.state[layers[0].weight]["exp_avg"]
    assert moment.shape == (4, 2) and torch.equal(moment[:3], opt.state[layer_a.weight]["exp_avg"])
    assert torch.equal(moment[3], torch.zeros(2))
