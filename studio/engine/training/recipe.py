"""A run's resolved recipe, without training it (``studio train --explain``): every section of its config with the
values that are on, the global batch, steps per epoch and in all, and the callbacks in the order the loop will call
them, each with one line on what it does (airbench's one-screen ``hyp`` in spirit).

Nothing is started and no run is created: the config is checked as ``studio train`` checks it (a bad one is the
same one-line error), the dataset is read when it is on this machine (never downloaded: a catalog dataset not
fetched yet is sized from its catalog entry, and the recipe says so), and the model is built on the CPU to count
its parameters. Imports torch (the CLI only).
"""

from __future__ import annotations

from typing import Any

import torch

from studio.core.config import RunConfig
from studio.core.config.data_fit import check_model_data
from studio.core.config.fit_check import training_samples
from studio.core.config.global_batch import global_batch, global_batch_text
from studio.core.config.suggested import is_applied, suggestion
from studio.core.errors import DataError
from studio.core.host import threads as thread_policy
from studio.core.runs.lineage import check_lineage, load_run_data, start_weights
from studio.engine.callbacks.base import STAGES
from studio.engine.loop.batching import lr_scale, plan_batches, steps_per_epoch
from studio.engine.loop.distributed import DistContext
from studio.engine.training.machine_check import check_machine
from studio.engine.training.worker import build_callbacks, build_model, frozen_epochs_of, is_full_batch

WIDTH = 118  # columns of the text recipe
RUN_DIR = "<run folder>"  # the callbacks' folder: named, never created
ALWAYS = ("epochs", "batch_size", "seed", "val_fraction", "metric_interval", "precision", "keep_checkpoints")
NEUTRAL = {"accumulate_steps": 1, "batch_growth": 1.0}  # values that mean "off"
NEEDS = {"base_batch": "lr_scaling", "early_stop_min_delta": "early_stop_patience",
         "batch_growth": "batch_growth_every", "batch_growth_every": "batch_growth"}  # only on with the other


def explain(cfg: RunConfig, store: Any = None) -> dict[str, Any]:
    """The recipe of a run of ``cfg``, as one JSON-ready dict; ConfigError/DataError (exit 2) as ``studio train``."""
    cfg.validate()
    check_machine(cfg)
    check_lineage(cfg, store)
    check_model_data(cfg)
    world = cfg.hardware.processes
    full_batch = is_full_batch(cfg, world)
    data, n_train, exact = _training_set(cfg, store)
    net = build_model(cfg, data, torch.device("cpu"), start_weights(cfg, store)) if data is not None else None
    per_rank, k, ranks, total_batch = global_batch(cfg)
    steps: dict[str, Any] = {"train_samples": n_train, "per_epoch": None, "total": None, "exact": exact}
    lr = float(cfg.optimizer.params.get("lr", 0.0))
    if n_train:
        batches = plan_batches(n_train, cfg.train, world, full_batch)
        per_epoch = [steps_per_epoch(n_train, b, world, cfg.train.accumulate_steps, cfg.train.epoch_steps)
                     for b in batches]
        steps.update(per_epoch=per_epoch[0], total=sum(per_epoch))
        lr *= lr_scale(cfg.train, batches[0] * k * world)  # as the run scales it (worker.build_optimizer)
    fine_tune = frozen_epochs_of(net) if net is not None else _frozen_epochs(cfg)
    ctx = DistContext(0, world, torch.device(cfg.hardware.device))
    tolerance = float(cfg.optimizer.params.get("tolerance", 0.0)) if full_batch else 0.0
    callbacks = build_callbacks(cfg, ctx, RUN_DIR, tolerance=tolerance, fine_tune_epochs=fine_tune)
    return {
        "data": _data_on(cfg),
        "model": {**_on(cfg.model.to_dict()),
                  **({"parameters": sum(p.numel() for p in net.parameters())} if net is not None else {})},
        "optimizer": {**_on(cfg.optimizer.to_dict()), **({"scaled_lr": lr} if cfg.train.lr_scaling else {})},
        "schedule": _on(cfg.schedule.to_dict()),
        "train": train_switches(cfg),
        "hardware": _hardware(cfg),
        "global_batch": {"per_process": per_rank, "accumulate_steps": k, "processes": ranks,
                         "samples": total_batch, "text": global_batch_text(cfg)},
        "steps": steps,
        "callbacks": [{"name": type(cb).__name__, "stage": cb.stage, "state_key": cb.state_key,
                       "does": cb.describe()} for cb in callbacks],
        **_suggested(cfg),
    }


def _suggested(cfg: RunConfig) -> dict[str, Any]:
    """The settings the model suggests (core/config/suggested.py), whether the config has them all, and why."""
    found = suggestion(cfg.model.name)
    if found is None:
        return {}
    return {"suggested": {"settings": dict(found.settings), "applied": is_applied(cfg), "why": found.why}}


def train_switches(cfg: RunConfig) -> dict[str, Any]:
    """The [train] settings that are on (the basics always), in the config's order."""
    values = vars(cfg.train)
    return {key: value for key, value in values.items()
            if key in ALWAYS or (_is_on(key, value) and (key not in NEEDS or _is_on(NEEDS[key], values[NEEDS[key]])))}


def _is_on(key: str, value: Any) -> bool:
    return bool(value) and value != NEUTRAL.get(key)


def _hardware(cfg: RunConfig) -> dict[str, Any]:
    """Device, processes, GPUs and the thread policy (core/host/threads.py), as a run started now would get it."""
    hw, plan = cfg.hardware, thread_policy.plan(cfg.hardware.threads, cfg.hardware.processes)
    out: dict[str, Any] = {"device": hw.device, "processes": hw.processes}
    if hw.gpus:
        out["gpus"] = list(hw.gpus)
    source = ("hardware.threads" if hw.threads else
              f"{plan.cores} cores ÷ {hw.processes} process{'es' if hw.processes != 1 else ''}")
    wait = "idle OpenMP threads sleep (PASSIVE)" if plan.wait_policy else "idle OpenMP threads spin"
    out["threads"] = plan.threads
    out["thread_policy"] = (f"{plan.threads} per process ({source}); {wait}: {plan.busy_cores:.1f} of {plan.cores} "
                            "cores busy now (decided again when the run starts)")
    return out


def _data_on(cfg: RunConfig) -> dict[str, Any]:
    """The data section's values that are on (the fill of shifted-in pixels only with a transform that shifts)."""
    from studio.core.datasets.augment_params import is_active, split_params

    section = _on(cfg.data.to_dict())
    if not is_active(split_params(cfg.data.params)[1]):
        section.pop("aug_fill", None)
    return section


def _on(section: dict[str, Any]) -> dict[str, Any]:
    """A registry section without the values that are off (0, false, empty)."""
    return {k: v for k, v in section.items() if k in ("name", "lr") or (v not in (None, "", []) and v is not False
                                                                           and v != 0)}


def _training_set(cfg: RunConfig, store: Any) -> tuple[Any, int | None, bool]:
    """(the dataset or None, samples an epoch trains on, whether that count is exact). A catalog dataset that is
    not on this machine is not fetched: its size comes from the catalog (core/config/fit_check.py)."""
    from studio.core.datasets.known import KNOWN
    from studio.core.datasets.torchvision_catalog import is_cached

    if cfg.data.name in KNOWN and not is_cached(cfg.data.name):
        return None, training_samples(cfg), False
    data = load_run_data(cfg, store)
    if len(data.y_train) == 0:
        raise DataError(f"dataset {cfg.data.name!r} has no training samples")
    x_train = data.split_validation(cfg.train.val_fraction, cfg.train.seed)[0]
    return data, len(x_train), True


def _frozen_epochs(cfg: RunConfig) -> int | None:
    """Without the model (its dataset is not here): a model with a ``frozen_epochs`` setting fine-tunes in two
    stages (the models that have ``freeze_base``: transfer, bert_classifier)."""
    value = cfg.model.params.get("frozen_epochs")
    return int(value) if value is not None else None


def recipe_text(recipe: dict[str, Any]) -> str:
    """The recipe on one screen."""

    def items(section: dict[str, Any], skip: tuple[str, ...] = ("name",)) -> list[str]:
        return [f"{k}={_value(v)}" for k, v in section.items() if k not in skip]

    def named(section: dict[str, Any], *extra: str) -> str:
        return " · ".join([section["name"], *items(section, ("name", "parameters")), *extra])

    steps, model = recipe["steps"], recipe["model"]
    about = "" if steps["exact"] else "about "
    if steps["total"] is None:
        step_line = "unknown until the dataset is on this machine"
    else:
        step_line = (f"{about}{steps['per_epoch']:,} per epoch, {about}{steps['total']:,} in all "
                     f"({about}{steps['train_samples']:,} training samples)")
    if not steps["exact"] and steps["train_samples"] is not None:
        step_line += f"; {recipe['data']['name']} is not on this machine yet, so its size is the catalog's"
    hw = recipe["hardware"]
    lines = [
        ("data", named(recipe["data"])),
        ("model", named(model, *([f"{model['parameters']:,} parameters"] if "parameters" in model else []))),
        ("optimizer", named(recipe["optimizer"])),
        ("schedule", named(recipe["schedule"])),
        ("train", " · ".join(items(recipe["train"], ()))),
        ("hardware", " · ".join([hw["device"], f"processes={hw['processes']}",
                                 *([f"gpus={_value(hw['gpus'])}"] if "gpus" in hw else []),
                                 f"threads {hw['thread_policy']}"])),
        ("batch", recipe["global_batch"]["text"]),
        ("steps", step_line),
        ("callbacks", "in the order the loop calls them; stages " + " < ".join(STAGES)),
    ]
    if "suggested" in recipe:
        found = recipe["suggested"]
        said = " · ".join(f"{k}={_value(v)}" for k, v in found["settings"].items())
        lines.insert(-1, ("suggested", f"{said} ({'applied' if found['applied'] else 'not applied: --preset suggested'}"
                                       f" takes them): {found['why']}"))
    out = [_wrap(f"{name:<10} {text}", 11) for name, text in lines]
    width = max((len(cb["name"]) for cb in recipe["callbacks"]), default=0)
    out += [_wrap(f"  {i:>2}. {cb['name']:<{width}}  {cb['stage']:<10} {cb['does']}", width + 19)
            for i, cb in enumerate(recipe["callbacks"], 1)]
    return "\n".join(out)


def _wrap(line: str, indent: int) -> str:
    """``line`` wrapped at WIDTH columns, its continuation lines indented to ``indent``."""
    import textwrap

    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False))


def _value(v: Any) -> str:
    if isinstance(v, dict):  # a user's own arguments: model.args
        return "{" + ", ".join(f"{k}={_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    if isinstance(v, float):
        return f"{v:g}"
    return str(v).lower() if isinstance(v, bool) else str(v)
