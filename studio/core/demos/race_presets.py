"""The optimizer race's preset line-ups and the entry suggested when a person adds an optimizer (torch-free:
the GUI's "Add optimizer" menu reads it without importing PyTorch)."""

from __future__ import annotations

from studio.core.demos.common import parse_optimizer_specs, spec_label
from studio.core.optim.catalog import OPTIMIZERS

# What the race runs when ``optimizers`` is "auto": chosen to show each function's lesson.
PRESETS = {
    "quadratic": "gd(lr=1.9); gd(lr=2.1); momentum(lr=0.3, momentum=0.8); adam(lr=0.3); newton",
    "rosenbrock": "gd(lr=0.001); momentum(lr=0.001, momentum=0.9); adam(lr=0.05); rmsprop(lr=0.01); newton",
    "beale": "gd(lr=0.01); momentum(lr=0.005, momentum=0.9); adam(lr=0.05); adagrad(lr=0.5); newton",
    "himmelblau": "gd(lr=0.01); momentum(lr=0.005, momentum=0.9); adam(lr=0.1); rmsprop(lr=0.05); newton",
    "saddle": "gd(lr=0.1); momentum(lr=0.1, momentum=0.9); adam(lr=0.05); newton(damping=0.0)",
    "rastrigin": "gd(lr=0.002); momentum(lr=0.002, momentum=0.9); adam(lr=0.1); rmsprop(lr=0.05); newton",
}


def line_up(optimizers: str, function: str) -> str:
    """The race's optimizers as text: ``optimizers`` itself, or the function's preset for "auto"."""
    return PRESETS[function] if optimizers.strip() == "auto" and function in PRESETS else optimizers


# an optimizer missing from a preset borrows the learning rate of its relative there (same step-size scale)
RELATIVE = {"sgd": "gd", "nesterov": "momentum", "momentum_lr_inside": "momentum", "adamw": "adam",
            "amsgrad": "adam", "nadam": "adam"}


def suggested_spec(name: str, function: str) -> str:
    """How to add optimizer ``name`` to a race on ``function``: the function's preset setting when it has
    one (a learning rate that shows something in 200 steps), else its relative's learning rate there,
    else the catalog's default learning rate."""
    preset = dict(reversed(parse_optimizer_specs(PRESETS.get(function, PRESETS["quadratic"]))))  # first wins
    if name in preset:
        return spec_label(name, preset[name])
    borrowed = preset.get(RELATIVE.get(name, ""), {}).get("lr")  # text, as written in the preset
    default = OPTIMIZERS.get(name).defaults().get("lr")
    if borrowed is None and default is None:
        return name
    return f"{name}(lr={borrowed if borrowed is not None else f'{default:g}'})"


def add_to_line_up(optimizers: str, function: str, name: str) -> str:
    """``optimizers`` (or the function's preset, for "auto") with optimizer ``name`` appended."""
    current = line_up(optimizers, function).strip().rstrip(";").strip()
    return f"{current}; {suggested_spec(name, function)}" if current else suggested_spec(name, function)
