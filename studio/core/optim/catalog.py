"""Optimizer and schedule registries.

Optimizer builders: ``build(params, **values) -> torch.optim.Optimizer``.
Schedule builders: ``build(total_steps, **values) -> Callable[[int], float]`` giving the factor
that multiplies the base learning rate at a step.
"""

from __future__ import annotations

from studio.core.registry import Entry, Param, Registry

OPTIMIZERS = Registry("optimizer")
SCHEDULES = Registry("schedule")


def lr_param(default: float) -> Param:
    return Param("lr", "float", default, "learning rate η: the step size", 1e-7, 100.0, log=True)


WEIGHT_DECAY = Param("weight_decay", "float", 0.0, "L2 penalty added to the gradient", 0.0, 1.0)

OPTIMIZERS.add(Entry(
    "sgd",
    "Stochastic gradient descent, with optional (Nesterov) momentum",
    (
        lr_param(0.05),
        Param("momentum", "float", 0.0, "momentum β: how much of the last step is kept", 0.0, 0.999),
        Param("nesterov", "bool", False, "evaluate the gradient at the look-ahead point (Nesterov)"),
        WEIGHT_DECAY,
    ),
    builder="studio.core.optim.builders:build_sgd",
    info="v ← βv + ∇F(w);  w ← w − ηv   (torch.optim.SGD; Sutskever et al. 2013 for Nesterov)",
))
OPTIMIZERS.add(Entry(
    "adam",
    "Adam: momentum on the gradient and a per-coordinate step size from its running square",
    (
        lr_param(1e-3),
        Param("beta1", "float", 0.9, "decay of the gradient average", 0.0, 0.9999),
        Param("beta2", "float", 0.999, "decay of the squared-gradient average", 0.0, 0.99999),
        Param("eps", "float", 1e-8, "added to the denominator for stability", 1e-12, 1.0, log=True),
        WEIGHT_DECAY,
    ),
    builder="studio.core.optim.builders:build_adam",
    info="m ← β1 m + (1−β1)g;  v ← β2 v + (1−β2)g²;  w ← w − η m̂/(√v̂ + ε)   (Kingma & Ba 2015)",
))

WARMUP = Param("warmup_steps", "int", 0, "steps of linear warm-up from 0 to the base rate", 0, 10_000_000)

SCHEDULES.add(Entry(
    "constant", "The same learning rate at every step (after an optional warm-up)", (WARMUP,),
    builder="studio.core.optim.schedules:constant",
))
SCHEDULES.add(Entry(
    "cosine", "Cosine decay from the base rate to a final fraction of it over the run",
    (WARMUP, Param("final_fraction", "float", 0.0, "learning rate at the end, as a fraction of the base", 0.0, 1.0)),
    builder="studio.core.optim.schedules:cosine",
    info="η_t = η_min + ½(η − η_min)(1 + cos(π t/T))   (Loshchilov & Hutter 2017)",
))
SCHEDULES.add(Entry(
    "warmup", "Linear warm-up from 0 to the base rate, then constant",
    (Param("warmup_steps", "int", 200, "steps of linear warm-up", 1, 10_000_000),),
    builder="studio.core.optim.schedules:constant",
    info="η_t = η·min(1, t/T_w)   (Goyal et al. 2017, 'Accurate, Large Minibatch SGD')",
))
