"""The classification playground (after TensorFlow Playground): an MLP on 2-D points, its decision
boundary as a heat map while it trains, train and test loss.

The points come from ``studio.core.datasets.synthetic.make_points``; the model is the catalog's "mlp" and
the optimizer a catalog one. Every ``frame_every`` steps a frame holds P(class 1) on a grid over the
points and the train/test loss and accuracy.

Two ways to run: a fixed run of ``steps`` steps (the CLI; the result holds every frame), or live (the Teaching
lab: ``controls`` given): it trains until stopped, paced (``core/demos/live.py``), and applies the changes the
view sends to the running training (:meth:`Playground.apply` says what each does to the state).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from studio.core.datasets.synthetic import make_points
from studio.core.demos import mlp_surgery
from studio.core.demos.catalog import DEMOS, PLAYGROUND_IDLE, PLAYGROUND_RESTART
from studio.core.demos.common import Emit, Progress, parse_ints, report, send, single_threaded
from studio.core.demos.live import Controls, LiveLoop
from studio.core.demos.points import custom_split, parse_points
from studio.core.demos.points import grid_box as grid_box
from studio.core.errors import ConfigError
from studio.core.models.catalog import MODELS
from studio.core.optim.catalog import OPTIMIZERS

DATASETS = ("spiral", "moons", "circles", "xor", "gaussian", "custom")
CUSTOM = "custom"  # the person's own points (the ``points`` setting; ``core/demos/points.py``)


def make_split(dataset: str, n_samples: int, noise: float, train_ratio: float, seed: int,
               points: str = "") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(x_train, y_train, x_test, y_test): ``n_samples`` points, ``train_ratio`` of them for training; for
    ``custom``, the ``points`` given (``core/demos/points.custom_split`` says which test)."""
    if not 0.05 <= train_ratio <= 0.95:
        raise ConfigError(f"train_ratio must be between 0.05 and 0.95; got {train_ratio}")
    if dataset == CUSTOM:
        split = custom_split(*parse_points(points), train_ratio, seed)
        return (torch.from_numpy(split[0]), torch.from_numpy(split[1]), torch.from_numpy(split[2]),
                torch.from_numpy(split[3]))
    gen = torch.Generator().manual_seed(seed)
    x, y = make_points(dataset, n_samples, noise, gen)
    perm = torch.randperm(n_samples, generator=gen)
    cut = max(2, int(round(n_samples * train_ratio)))
    return x[perm[:cut]], y[perm[:cut]], x[perm[cut:]], y[perm[cut:]]


def boundary_grid(model: nn.Module, box: tuple[float, float, float, float],
                  resolution: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, p) with ``p[i, j]`` = P(class 1) at (xs[j], ys[i])."""
    xs, ys = np.linspace(box[0], box[1], resolution), np.linspace(box[2], box[3], resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = torch.from_numpy(np.stack([gx.ravel(), gy.ravel()], axis=1)).float()
    was = model.training
    model.eval()
    with torch.no_grad():
        p = torch.softmax(model(pts), dim=1)[:, 1].numpy().reshape(resolution, resolution)
    model.train(was)
    return xs, ys, p


def classify_with_grid(xs: np.ndarray, ys: np.ndarray, p: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Labels of ``points`` read off the decision-boundary grid (the nearest grid cell's P(class 1) > ½)."""
    j = np.clip(np.rint((points[:, 0] - xs[0]) / (xs[1] - xs[0])).astype(int), 0, len(xs) - 1)
    i = np.clip(np.rint((points[:, 1] - ys[0]) / (ys[1] - ys[0])).astype(int), 0, len(ys) - 1)
    return (p[i, j] > 0.5).astype(int)


def _measure(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    if not len(y):  # your own points, too few to spare any for testing
        return float("nan"), float("nan")
    was = model.training
    model.eval()
    with torch.no_grad():
        out = model(x)
        loss = float(nn.functional.cross_entropy(out, y))
        acc = float((out.argmax(1) == y).float().mean())
    model.train(was)
    return loss, acc


DATA = ("dataset", "noise", "n_samples", "train_ratio", "points")  # a change draws the points again (same seed)
RESTART = PLAYGROUND_RESTART  # a change starts training again from new weights (the view restarts the job)
IDLE = PLAYGROUND_IDLE  # no effect on a live run (it trains until paused or stopped)


class Playground:
    """The playground's training state: the points, the MLP (as its Linear layers), the optimizer, the batch
    order and the step count. :meth:`train` takes steps, :meth:`frame` pictures the boundary, :meth:`apply`
    changes parameters of the running training."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.p = dict(params)
        if self.p["dataset"] not in DATASETS:
            raise ConfigError(f"unknown point dataset {self.p['dataset']!r}; choose one of {', '.join(DATASETS)}")
        seed = self.p["seed"]
        torch.manual_seed(seed)
        self._draw_points()
        model = MODELS.build("mlp", input_shape=(2,), num_classes=2, widths=parse_ints(self.p["widths"], "widths"),
                             activation=self.p["activation"], dropout=self.p["dropout"])
        self.layers = mlp_surgery.linears(model)
        self.model = model
        self.opt = self._optimizer()
        self.gen = torch.Generator().manual_seed(seed + 1)
        self._new_order()
        self.step = 0

    # --- state ---------------------------------------------------------------------------------
    def _draw_points(self) -> None:
        p = self.p
        self.xtr, self.ytr, self.xte, self.yte = make_split(p["dataset"], p["n_samples"], p["noise"],
                                                            p["train_ratio"], p["seed"], p.get("points", ""))
        self.box = grid_box(torch.cat([self.xtr, self.xte]).numpy())

    def _new_order(self) -> None:
        n = len(self.ytr)
        self.batch = n if self.p["batch_size"] <= 0 or self.p["batch_size"] >= n else self.p["batch_size"]
        self.order, self.cursor = torch.randperm(n, generator=self.gen), 0

    def _optimizer(self) -> torch.optim.Optimizer:
        name, lr = self.p["optimizer"], self.p["lr"]
        values = OPTIMIZERS.resolve(name, {"lr": max(lr, 1e-7), "weight_decay": self.p["weight_decay"]}, "optimizer")
        opt = OPTIMIZERS.build(name, params=self.model.parameters(), **values)
        for group in opt.param_groups:
            group["lr"] = lr  # lr 0 (frozen weights) is allowed here, though the registries ask for more
        return opt

    @property
    def widths(self) -> list[int]:
        return [layer.out_features for layer in self.layers[:-1]]

    def setup(self) -> dict[str, Any]:
        return {"x_train": self.xtr.numpy(), "y_train": self.ytr.numpy(), "x_test": self.xte.numpy(),
                "y_test": self.yte.numpy(), "box": self.box}

    # --- training ------------------------------------------------------------------------------
    def train(self, steps: int) -> None:
        n = len(self.ytr)
        for _ in range(steps):
            if self.cursor + self.batch > n:
                self.order, self.cursor = torch.randperm(n, generator=self.gen), 0
            idx = self.order[self.cursor:self.cursor + self.batch]
            self.cursor += self.batch
            self.opt.zero_grad()
            nn.functional.cross_entropy(self.model(self.xtr[idx]), self.ytr[idx]).backward()
            self.opt.step()
            self.step += 1

    def frame(self) -> dict[str, Any]:
        _xs, _ys, grid = boundary_grid(self.model, self.box, self.p["resolution"])
        (trl, tra), (tel, tea) = _measure(self.model, self.xtr, self.ytr), _measure(self.model, self.xte, self.yte)
        return {"step": self.step, "p": grid.astype(np.float32), "train_loss": trl, "train_acc": tra,
                "test_loss": tel, "test_acc": tea}

    # --- live changes --------------------------------------------------------------------------
    def apply(self, changes: dict[str, Any]) -> list[str]:
        """Apply new parameter values to the running training; what each did to the state, in words."""
        old = dict(self.p)
        self.p.update(changes)
        changed = {k for k in changes if changes[k] != old.get(k)}
        notes: list[str] = []
        if changed & {"lr", "weight_decay"}:
            for group in self.opt.param_groups:
                group["lr"], group["weight_decay"] = self.p["lr"], self.p["weight_decay"]
            notes.append(f"lr {self.p['lr']:g}, weight decay {self.p['weight_decay']:g} from step {self.step} "
                         "(weights and optimizer state kept)")
        if "widths" in changed:
            notes.append(self._resize(parse_ints(self.p["widths"], "widths")))
        if changed & {"activation", "dropout"}:
            self.model = mlp_surgery.assemble(self.layers, self.p["activation"], self.p["dropout"])
            notes.append(f"activation {self.p['activation']}, dropout {self.p['dropout']:g} "
                         "(the same weights: the boundary changes at once)")
        if "optimizer" in changed:
            self.opt = self._optimizer()
            notes.append(f"optimizer {self.p['optimizer']}: a new one on the same weights (its state starts empty)")
        if changed & set(DATA):
            self._draw_points()
            self._new_order()
            if self.p["dataset"] == CUSTOM:
                notes.append(f"your {len(self.ytr) + len(self.yte)} points ({len(self.yte)} of them test); "
                             "the weights kept")
            else:
                notes.append("the points drawn again (same seed" + (f", noise {self.p['noise']:g}" if "noise" in
                                                                      changed else "") + "); the weights kept")
        elif "batch_size" in changed:
            self._new_order()
            notes.append(f"batch size {self.batch}")
        return notes

    def _resize(self, widths: list[int]) -> str:
        before = self.widths
        layers, origin = mlp_surgery.resize(self.layers, widths)
        old_layers, old_opt = self.layers, self.opt
        self.layers = layers
        self.model = mlp_surgery.assemble(layers, self.p["activation"], self.p["dropout"])
        self.opt = self._optimizer()
        mlp_surgery.carry_state(old_opt, self.opt, old_layers, layers, origin)
        if len(widths) > len(before):
            how = "a new layer starts near the identity (exactly for relu), the others keep their weights"
        elif len(widths) < len(before):
            how = "the last hidden layers dropped; the output layer now reads the layer before (the loss jumps)"
        else:
            how = "units kept where they fit; new units start with small outgoing weights, dropped units are gone"
        return f"widths {','.join(map(str, before))} → {','.join(map(str, widths))}: {how}"


@single_threaded
def run(dataset: str = "spiral", points: str = "", noise: float = 0.1, n_samples: int = 400, train_ratio: float = 0.5,
        widths: str = "16,16", activation: str = "tanh", dropout: float = 0.0, weight_decay: float = 0.0,
        optimizer: str = "adam", lr: float = 0.03, batch_size: int = 16, steps: int = 1500,
        frame_every: int = 25, resolution: int = 64, seed: int = 0, progress: Progress | None = None,
        emit: Emit | None = None, controls: Controls | None = None) -> dict[str, Any]:
    """Train an MLP on 2-D points; frames of the decision boundary and the loss curves. With ``controls``: live
    (:func:`run_live`), until stopped."""
    params = {k: v for k, v in locals().items() if k not in ("progress", "emit", "controls")}
    state = Playground(params)
    if controls is not None:
        return run_live(state, controls, progress, emit)
    frames: list[dict[str, Any]] = []

    def snapshot() -> None:
        frames.append(state.frame())
        send(emit, frames[-1])

    send(emit, {"setup": state.setup()})  # the points, before any frame
    snapshot()
    while state.step < steps:
        state.train(min(frame_every - state.step % frame_every, steps - state.step))
        snapshot()
        report(progress, state.step / steps, f"step {state.step}/{steps}")
    xs, ys, p = boundary_grid(state.model, state.box, resolution)
    last = frames[-1]
    summary = {"dataset": dataset, "steps": steps, "train_loss": last["train_loss"], "test_loss": last["test_loss"],
               "train_acc": last["train_acc"], "test_acc": last["test_acc"],
               "grid_test_acc": float((classify_with_grid(xs, ys, p, state.xte.numpy()) == state.yte.numpy()).mean())
               if len(state.yte) else None}
    return {"summary": summary, **state.setup(), "xs": xs, "ys": ys, "frames": frames}


def run_live(state: Playground, controls: Controls, progress: Progress | None = None,
             emit: Emit | None = None) -> dict[str, Any]:
    """Train until stopped (``controls`` raises Cancelled): a frame every ``frame_every`` steps at most
    ``live.MAX_FPS`` a second; between frames the view's changes are applied (each frame carries the note of
    what the last change did), pause/resume/step obeyed. No progress reports (there is no end): the frames say the
    step. It ends only through a cancel (``controls`` raises Cancelled)."""
    del progress
    loop = LiveLoop(controls)
    loop.on_pause = lambda paused: send(emit, {"paused": paused, "step": state.step})
    send(emit, {"setup": state.setup()})
    send(emit, {**state.frame(), "widths": state.widths})
    entry = DEMOS.get("playground")
    while True:
        changes, go = loop.next_frame()
        changes = {k: entry.param(k).coerce(v, k) for k, v in changes.items()}
        at = state.step
        notes = state.apply(changes) if changes else []
        if changes.keys() & set(DATA):
            send(emit, {"setup": state.setup()})
        if go:
            state.train(max(1, int(state.p["frame_every"])))
        send(emit, {**state.frame(), "widths": state.widths, **({"notes": notes, "changed_at": at} if notes else {})})
