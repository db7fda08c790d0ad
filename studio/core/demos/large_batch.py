"""The large-batch lab: one model trained at several batch sizes on the same data from the same start.

Per batch size: the steps until the test accuracy first reaches a target (Shallue et al. 2019: perfect
scaling, then diminishing returns), and at the end of training the top eigenvalue of the training loss's
Hessian and the train–test gap (Keskar et al. 2017: large batches find sharper minima that generalise
worse). The linear-scaling rule (η = η₀·B/B₀) and a linear warm-up (Goyal et al. 2017) are switches.
Finally the loss along the straight line between the smallest- and the largest-batch solutions.

Keskar et al.'s protocol: every batch size trains until it fits the training set (``until_train_acc``, at
most ``epochs`` epochs; 0 trains every batch size the same epochs instead), the large batch being 10 % of the
training set. Sharpness is measured two ways, both from ``studio.core.landscape.curvature``: the top Hessian
eigenvalue (Lanczos on Hessian-vector products) and Keskar's ε-box sharpness (the largest relative loss rise
in the box |z_i| ≤ ε(|θ_i| + 1)). The interpolation comes from ``studio.core.landscape.surface.interpolate_1d``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.demos.common import Emit, Progress, finite_or_none, parse_ints, report, send, torch_threads
from studio.core.demos.training import Batches, Data, build_model, evaluate, load_data, steps_for
from studio.core.errors import ConfigError
from studio.core.host.devices import pick_device
from studio.core.landscape import curvature, surface
from studio.core.maths.objectives import cross_entropy_sum
from studio.core.optim.catalog import OPTIMIZERS

MODELS_ALLOWED = ("mlp", "linear", "lenet5", "cnn")


def model_params(model: str, widths: str, batch_norm: bool = False) -> dict[str, Any]:
    """The catalog model's parameters: the MLP's widths (and batch norm, which Goyal et al.'s set-up needs)."""
    if model != "mlp":
        return {}
    return {"widths": parse_ints(widths, "widths"), **({"batch_norm": True} if batch_norm else {})}


def lr_for(batch: int, lr: float, linear_scaling: bool, base_batch: int) -> float:
    """The linear-scaling rule (Goyal et al. 2017): η = η₀ · B / B₀ when switched on."""
    return lr * batch / base_batch if linear_scaling else lr


def top_eigenvalue(model: nn.Module, x: torch.Tensor, y: torch.Tensor, seed: int = 0) -> float:
    """The largest eigenvalue of the Hessian of the mean cross-entropy on (x, y) at the model's weights."""
    params = {n: p.detach() for n, p in model.named_parameters()}
    loss = curvature.LossFunction(model, params, x, y, cross_entropy_sum, batch_size=1024)
    eig = curvature.lanczos(loss.matvec, loss.dim, k=1, iters=40, tol=1e-3, seed=seed, device=x.device)[0]
    model.train()
    return float(eig)


def eps_sharpness(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, seed: int = 0) -> float:
    """Keskar et al.'s sharpness in percent: the largest relative rise of the training loss within the box
    ``|z_i| ≤ ε(|θ_i| + 1)`` (``curvature.eps_sharpness``: projected sign-gradient ascent, 10 steps)."""
    params = {n: p.detach() for n, p in model.named_parameters()}
    loss = curvature.LossFunction(model, params, x, y, cross_entropy_sum, batch_size=1024)
    value = curvature.eps_sharpness(loss, eps=eps, steps=10, seed=seed)["eps_sharpness"]
    model.train()
    return float(value)


def train_one(data: Data, batch: int, model_name: str, mparams: dict[str, Any], optimizer: str, lr: float,
              epochs: float, warmup_epochs: float, target_acc: float, evals: int, seed: int,
              device: torch.device, hessian_x: torch.Tensor, hessian_y: torch.Tensor,
              progress: Progress | None = None, until_train_acc: float = 0.0, sharpness_eps: float = 0.0,
              emit: Emit | None = None) -> tuple[dict[str, Any], nn.Module]:
    """Train at batch size ``batch`` (learning rate ``lr`` already scaled); the run's curves and numbers.

    ``epochs`` epochs, or with ``until_train_acc`` > 0 until the training accuracy (on the whole training set,
    at an evaluation) reaches it, ``epochs`` being the cap. ``sharpness_eps`` > 0 adds Keskar's ε-box sharpness.
    ``emit`` receives ``{"partial": ...}``, the run's curve so far, at every evaluation.
    """
    started = time.perf_counter()
    model = build_model(model_name, data, seed, device, **mparams)
    opt = OPTIMIZERS.build(optimizer, params=model.parameters(),
                           **OPTIMIZERS.resolve(optimizer, {"lr": lr}, "optimizer"))
    n = len(data.train)
    batches = Batches(n, batch, seed + 1, device)
    total = steps_for(epochs, n, batch)
    warmup = int(round(warmup_epochs * batches.per_epoch))
    every = max(1, total // evals)
    per_epoch = max(batches.per_epoch, 1)
    loss0, acc0 = evaluate(model, data.train)
    steps, test_accs, train_losses, train_accs = [0], [evaluate(model, data.test)[1]], [loss0], [acc0]
    reached = 0 if test_accs[0] >= target_acc else None
    running, count, converged = 0.0, 0, False
    done = total
    partial = {"batch_size": batch, "lr": lr, "per_epoch": per_epoch}
    send(emit, {"partial": {**partial, "step": 0, "curve": _curve(steps, test_accs, train_losses, train_accs)}})
    for step in range(1, total + 1):
        if warmup:
            for group in opt.param_groups:
                group["lr"] = lr * min(1.0, step / warmup)
        idx = batches.next()
        loss = nn.functional.cross_entropy(model(data.train.x[idx]), data.train.y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        running, count = running + float(loss.detach()), count + 1
        if step % every == 0 or step == total:
            acc = evaluate(model, data.test)[1]
            steps.append(step)
            test_accs.append(acc)
            train_losses.append(running / count)
            train_accs.append(evaluate(model, data.train)[1])
            running, count = 0.0, 0
            if reached is None and acc >= target_acc:
                reached = step
            converged = until_train_acc > 0 and train_accs[-1] >= until_train_acc
            fraction = 1.0 if converged else max(step / total, _fitted(acc0, train_accs[-1], until_train_acc, n))
            report(progress, fraction, f"batch {batch}: step {step}/{total}, epoch {step / per_epoch:.3g}")
            send(emit, {"partial": {**partial, "step": step, "curve": _curve(steps, test_accs, train_losses,
                                                                             train_accs)}})
            if converged:
                done = step
                break
    train_loss, train_acc = evaluate(model, data.train)
    test_loss, test_acc = evaluate(model, data.test)
    eig = top_eigenvalue(model, hessian_x, hessian_y, seed)
    sharp = eps_sharpness(model, hessian_x, hessian_y, sharpness_eps, seed) if sharpness_eps > 0 else None
    return {
        "batch_size": batch, "lr": lr, "steps": done, "epochs": done / per_epoch, "converged": converged,
        "steps_to_target": reached, "top_eigenvalue": eig, "eps_sharpness": sharp,
        "train_loss": train_loss, "train_acc": train_acc, "test_loss": test_loss, "test_acc": test_acc,
        "gap": train_acc - test_acc, "loss_gap": test_loss - train_loss,
        "seconds": round(time.perf_counter() - started, 2), "per_epoch": per_epoch,
        "curve": _curve(steps, test_accs, train_losses, train_accs),
    }, model


def _fitted(start: float, acc: float, goal: float, n: int) -> float:
    """How far training is towards ``goal`` training accuracy, on a log scale of the error (0.9 → 0.99 → 0.999
    are equal strides), for the progress bar; 0 when there is no goal."""
    if goal <= 0:
        return 0.0
    first, now, end = 1 - start, 1 - acc, max(1 - goal, 0.5 / max(n, 1))
    if first <= end or now >= first:
        return 0.0
    return min(1.0, math.log(first / max(now, end)) / math.log(first / end))


def _curve(steps: list[int], test_accs: list[float], train_losses: list[float],
           train_accs: list[float]) -> dict[str, np.ndarray]:
    return {"step": np.asarray(steps), "test_acc": np.asarray(test_accs), "train_loss": np.asarray(train_losses),
            "train_acc": np.asarray(train_accs)}


def run(dataset: str = "fashion_mnist_small", model: str = "mlp", widths: str = "128,128", optimizer: str = "adam",
        batch_sizes: str = "32,64,128,256,400", lr: float = 1e-3, linear_scaling: bool = False, base_batch: int = 32,
        warmup: bool = False, warmup_epochs: float = 1.0, epochs: float = 200.0, target_acc: float = 0.8,
        train_samples: int = 4000, test_samples: int = 2000, hessian_samples: int = 1000,
        interpolation: bool = True, evals: int = 200, seed: int = 0, device: str = "auto", threads: int = 1,
        until_train_acc: float = 1.0, sharpness_eps: float = 1e-3, batch_norm: bool = False,
        progress: Progress | None = None, emit: Emit | None = None) -> dict[str, Any]:
    """The batch-size sweep; emits each batch size's curve while it trains and its result when it finishes.

    ``until_train_acc`` > 0: each batch size trains until its training accuracy reaches it (at most ``epochs``
    epochs), Keskar et al.'s protocol; 0: every batch size trains exactly ``epochs`` epochs.
    """
    if model not in MODELS_ALLOWED:
        raise ConfigError(f"the large-batch lab trains one of {', '.join(MODELS_ALLOWED)}; got {model!r}")
    sizes = sorted(set(parse_ints(batch_sizes, "batch_sizes")))
    dev = pick_device(device)
    mparams = model_params(model, widths, batch_norm)
    with torch_threads(threads):  # restored afterwards: the warm back end runs other demos next
        return _sweep(sizes, dataset, model, mparams, optimizer, lr, linear_scaling, base_batch, warmup, warmup_epochs,
                      epochs, target_acc, train_samples, test_samples, hessian_samples, interpolation, evals, seed,
                      dev, until_train_acc, sharpness_eps, progress, emit)


def _sweep(sizes: list[int], dataset: str, model: str, mparams: dict[str, Any], optimizer: str, lr: float,
           linear_scaling: bool, base_batch: int, warmup: bool, warmup_epochs: float, epochs: float,
           target_acc: float, train_samples: int, test_samples: int, hessian_samples: int, interpolation: bool,
           evals: int, seed: int, dev: torch.device, until_train_acc: float, sharpness_eps: float,
           progress: Progress | None, emit: Emit | None) -> dict[str, Any]:
    report(progress, 0.0, f"loading {dataset}")
    data = load_data(dataset, train_samples, test_samples, seed, dev)
    hx, hy = data.train.x[:hessian_samples], data.train.y[:hessian_samples]
    runs: list[dict[str, Any]] = []
    models: list[nn.Module] = []
    share = 0.92 if interpolation and len(sizes) > 1 else 1.0
    for i, batch in enumerate(sizes):
        lo, hi = share * i / len(sizes), share * (i + 1) / len(sizes)
        sub = None if progress is None else (lambda f, t, lo=lo, hi=hi: progress(lo + (hi - lo) * f, t))
        result, net = train_one(data, batch, model, mparams, optimizer, lr_for(batch, lr, linear_scaling, base_batch),
                                epochs, warmup_epochs if warmup else 0.0, target_acc, evals, seed, dev, hx, hy, sub,
                                until_train_acc=until_train_acc, sharpness_eps=sharpness_eps, emit=emit)
        runs.append(result)
        models.append(net)
        send(emit, {"run": result})
    interp = None
    if interpolation and len(sizes) > 1:
        report(progress, share, "interpolating between the smallest- and largest-batch solutions")
        interp = interpolate(models[0], models[-1], data, hx, hy)
        send(emit, {"interpolation": interp})
    report(progress, 1.0, "done")
    summary = {
        "dataset": dataset, "model": model, "optimizer": optimizer, "epochs": epochs, "target_acc": target_acc,
        "linear_scaling": linear_scaling, "warmup": warmup, "until_train_acc": until_train_acc,
        "sharpness_eps": sharpness_eps,
        "runs": {str(r["batch_size"]): {"steps_to_target": r["steps_to_target"], "top_eigenvalue":
                                        finite_or_none(r["top_eigenvalue"]),
                                        "eps_sharpness": finite_or_none(r["eps_sharpness"]), "gap": r["gap"],
                                        "lr": r["lr"], "train_acc": r["train_acc"], "test_acc": r["test_acc"],
                                        "steps": r["steps"], "epochs": round(r["epochs"], 2),
                                        "converged": r["converged"]}
                 for r in runs},
    }
    return {"summary": summary, "runs": runs, "interpolation": interp}


def interpolate(small: nn.Module, large: nn.Module, data: Data, x: torch.Tensor, y: torch.Tensor,
                resolution: int = 41) -> dict[str, Any]:
    """Loss and accuracy along (1 − α)·θ_small + α·θ_large, α ∈ [−0.5, 1.5], on train and test data."""
    start = {n: p.detach() for n, p in small.named_parameters()}
    end = {n: p.detach() for n, p in large.named_parameters()}
    alphas = surface.default_alphas(resolution)
    out: dict[str, Any] = {"alpha": alphas}
    for split, (xs, ys) in (("train", (x, y)), ("test", (data.test.x, data.test.y))):
        values = surface.interpolate_1d(large, start, end, xs, ys, alphas)
        out[f"{split}_loss"], out[f"{split}_acc"] = values["loss"], values["acc"]
    return out
