"""Each learning-rate schedule against its formula (and torch's own scheduler where it has one)."""

from __future__ import annotations

import math

import pytest

from studio.core.optim import SCHEDULES

T, SPE = 200, 20  # total steps, steps per epoch


def factors(name: str, total: int = T, spe: int = SPE, **values) -> list[float]:
    f = SCHEDULES.build(name, total_steps=total, steps_per_epoch=spe,
                        **SCHEDULES.resolve(name, values, "schedule"))
    return [f(t) for t in range(total)]


def torch_lrs(make, total: int = T) -> list[float]:
    """The learning rates a torch scheduler gives for base rate 1, one value per optimizer step."""
    import torch

    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = make(opt)
    out = []
    for _ in range(total):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


FORMULAS = {
    "constant": ({}, lambda t: 1.0),
    "warmup": ({"warmup_steps": 50}, lambda t: min(1.0, (t + 1) / 50)),
    "step": ({"step_epochs": 3, "gamma": 0.5}, lambda t: 0.5 ** (t // (3 * SPE))),
    "exponential": ({"gamma": 0.9}, lambda t: 0.9 ** (t / SPE)),
    "cosine": ({"final_fraction": 0.1}, lambda t: 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t / T))),
    "inverse_sqrt": ({"timescale": 10}, lambda t: 1 / math.sqrt(1 + t / 10)),
    "wsd": ({"cooldown_fraction": 0.25}, lambda t: 1.0 if t < 150 else (T - t) / 50),
    "poly": ({"power": 2.0}, lambda t: (1 - t / T) ** 2),
    "one_cycle": None,  # checked against torch's OneCycleLR below
}


def test_every_registered_schedule_is_checked():
    assert set(FORMULAS) == set(SCHEDULES.names())
    for entry in SCHEDULES:
        assert entry.description and entry.info, entry.name


@pytest.mark.parametrize("name", [n for n, case in FORMULAS.items() if case is not None])
def test_schedule_matches_its_formula(name):
    values, formula = FORMULAS[name]
    got = factors(name, **values)
    for t, g in enumerate(got):
        assert g == pytest.approx(formula(t), abs=1e-12), f"{name} at step {t}"


def test_step_exponential_and_cosine_agree_with_torch_schedulers():
    import torch

    sched = torch.optim.lr_scheduler
    # torch's StepLR/ExponentialLR count epochs: call them once per epoch and hold the value over its steps
    step_epochs = torch_lrs(lambda o: sched.StepLR(o, step_size=3, gamma=0.5), total=T // SPE)
    assert factors("step", step_epochs=3, gamma=0.5)[::SPE] == pytest.approx(step_epochs, abs=1e-12)
    exp_epochs = torch_lrs(lambda o: sched.ExponentialLR(o, gamma=0.9), total=T // SPE)
    assert factors("exponential", gamma=0.9)[::SPE] == pytest.approx(exp_epochs, abs=1e-12)
    cos = torch_lrs(lambda o: sched.CosineAnnealingLR(o, T_max=T, eta_min=0.1))
    assert factors("cosine", final_fraction=0.1) == pytest.approx(cos, abs=1e-9)


@pytest.mark.parametrize("total", [10, 37, 200])
@pytest.mark.parametrize("pct,div,final", [(0.3, 25.0, 1e4), (0.5, 10.0, 100.0)])
def test_one_cycle_matches_torch(total, pct, div, final):
    import torch

    want = torch_lrs(lambda o: torch.optim.lr_scheduler.OneCycleLR(
        o, max_lr=1.0, total_steps=total, pct_start=pct, div_factor=div, final_div_factor=final,
        cycle_momentum=False), total=total)
    got = factors("one_cycle", total=total, pct_start=pct, div_factor=div, final_div_factor=final)
    assert got == pytest.approx(want, abs=1e-9)
    assert got[0] == pytest.approx(1 / div) and max(got) == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize("name,values", [("constant", {}), ("step", {"step_epochs": 1, "gamma": 0.5}),
                                         ("exponential", {"gamma": 0.9}), ("inverse_sqrt", {"timescale": 10}),
                                         ("wsd", {"cooldown_fraction": 0.25})])
def test_warmup_composes_with_any_schedule(name, values):
    plain = factors(name, **values)
    warm = factors(name, warmup_steps=30, **values)
    for t in range(T):
        assert warm[t] == pytest.approx(min(1.0, (t + 1) / 30) * plain[t], abs=1e-12)


def test_cosine_warmup_then_decays_over_the_rest_of_the_run():
    got = factors("cosine", warmup_steps=40)
    assert got[:40] == pytest.approx([(t + 1) / 40 for t in range(40)])
    for t in range(40, T):
        assert got[t] == pytest.approx(0.5 * (1 + math.cos(math.pi * (t - 40) / (T - 40))), abs=1e-12)


def test_lambda_lr_applies_the_factor_at_each_optimizer_step():
    import torch

    f = SCHEDULES.build("step", total_steps=T, steps_per_epoch=SPE, step_epochs=1, gamma=0.1)
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    seen = []
    for _ in range(2 * SPE + 1):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert seen[0] == seen[SPE - 1] == 0.5
    assert seen[SPE] == pytest.approx(0.05) and seen[2 * SPE] == pytest.approx(0.005)


def test_poly_warms_up_then_decays_to_zero_over_the_rest_of_the_run():
    got = factors("poly", warmup_steps=40, power=1.0)
    assert got[:40] == pytest.approx([(t + 1) / 40 for t in range(40)])
    assert got[40:] == pytest.approx([1 - (t - 40) / (T - 40) for t in range(40, T)], abs=1e-12)
