"""What every process of the study shares: the data (``core/demos/training.load_data``: normalised tensors),
the catalog MLP built from the seed (every mode starts from the same weights), a worker's mini-batches, and the
loss of weight snapshots on a fixed evaluation set (measured after the run, so evaluating costs no mode time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from torch import nn

    from studio.core.demos.training import Data

EVAL_SAMPLES = 2000  # training images the loss curve is measured on (the same for every mode)


def load(dataset: str, seed: int) -> Data:
    from studio.core.demos.training import load_data

    return load_data(dataset, 0, 0, seed, "cpu")


def build(data: Data, widths: tuple[int, ...] | list[int], seed: int, device: str = "cpu") -> nn.Module:
    from studio.core.demos.training import build_model

    return build_model("mlp", data, seed, device, widths=list(widths))


def gradient(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[list[torch.Tensor], float]:
    """The mini-batch's gradient of the mean cross-entropy (one tensor per parameter) and its loss."""
    from torch import nn

    model.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return [p.grad.detach().clone() if p.grad is not None else p.detach() * 0 for p in model.parameters()], \
        float(loss.detach())


def load_weights(model: nn.Module, weights: list[torch.Tensor]) -> None:
    import torch

    with torch.no_grad():
        for p, w in zip(model.parameters(), weights, strict=True):
            p.copy_(w)


def snapshot(model: nn.Module) -> list[torch.Tensor]:
    return [p.detach().to("cpu", copy=True) for p in model.parameters()]


def evaluate_snapshots(data: Data, widths: tuple[int, ...] | list[int], seed: int,
                       snapshots: list[tuple[int, float, list[Any]]]) -> tuple[list[dict[str, Any]], float]:
    """``[(update, seconds, weights)]`` → the curve ``[{update, seconds, loss}]`` on the evaluation set, and the
    test accuracy of the last snapshot."""
    from studio.core.demos.training import Split, evaluate

    model = build(data, widths, seed)
    probe = Split(data.train.x[:EVAL_SAMPLES], data.train.y[:EVAL_SAMPLES])
    curve = []
    for update, seconds, weights in snapshots:
        load_weights(model, weights)
        loss, _ = evaluate(model, probe)
        curve.append({"update": int(update), "seconds": round(float(seconds), 4), "loss": float(loss)})
    accuracy = evaluate(model, data.test)[1] if snapshots else float("nan")
    return curve, accuracy


def exit_with_parent(poll_s: float = 0.5) -> None:
    """A daemon thread that ends this process when its parent dies (its parent id changes): no process left
    behind even when the parent was killed with SIGKILL and could not clean up."""
    import os
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
