"""RunConfig: everything about a run, shared by the GUI, the CLI and the engine.

Plain dataclasses; ``to_dict``/``from_dict`` round-trip through TOML. Registry-backed sections
(data, model, optimizer, schedule) hold a ``name`` and that entry's parameters, flat in the
section, so ``--set model.widths=256,256`` and ``[model] widths = [256, 256]`` read the same.
"""

from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from studio.core.config import external  # noqa: F401 - the hidden "external" entries, before any config is read
from studio.core.contracts.registry import Choice, Param, Registry
from studio.core.datasets import DATASETS
from studio.core.errors import ConfigError
from studio.core.models import MODELS
from studio.core.numbers.ints import split_ints
from studio.core.optim import OPTIMIZERS, SCHEDULES

DEVICES = ("cpu", "cuda")


@dataclass
class TrainConfig:
    epochs: int = 5
    batch_size: int = 128  # the global batch: split evenly across processes
    epoch_steps: int = 0  # at most this many optimizer steps per epoch (a quick look at a big model); 0: all
    seed: int = 0
    val_fraction: float = 0.1
    metric_interval: int = 20  # steps between metric reads (the only host syncs in the loop)
    checkpoint_every: int = 0  # epochs between checkpoints; 0: only at the end or on stop
    checkpoint_minutes: float = 10.0  # also checkpoint when this much time has passed (a crash loses less); 0: off
    # regularisers, stopping rules and large-batch tools (engine/callbacks/regularisers.py, stopping.py, batching.py)
    label_smoothing: float = 0.0
    grad_clip: float = 0.0  # max global gradient norm; 0: off
    grad_noise: float = 0.0  # η of the annealed gradient noise; 0: off
    ghost_batch: int = 0  # virtual batch size of Ghost Batch Norm; 0: off
    early_stop_patience: int = 0  # epochs without improvement; 0: off
    early_stop_min_delta: float = 0.0
    lr_scaling: bool = False  # linear scaling rule: lr × batch_size / base_batch
    base_batch: int = 256
    batch_growth: float = 1.0  # multiply the batch size by this every batch_growth_every epochs
    batch_growth_every: int = 0
    landscape_every: int = 0  # epochs between live 2-D landscape snapshots; 0: off
    sharpness_every: int = 0  # epochs between logging sharpness/top_eig; 0: off
    histogram_every: int = 100  # steps between weight/gradient histograms per tensor (histograms.jsonl); 0: off
    trajectory_snapshots: bool = True  # float16 weights at a few epoch ends, for trajectory landscapes
    attention_every: int = 50  # steps between attention snapshots of Transformers (attention/); 0: off
    keep_checkpoints: int = 3  # keep the last N step checkpoints (final.pt and step 0 are always kept); 0: keep all
    stall_timeout: int = 600  # seconds without progress (not paused) before a stalled rank fails the run; 0: off
    # mixed precision and gradient accumulation (engine/loop/precision.py, trainer.py)
    precision: str = "fp32"  # fp32 | bf16 | fp16 (fp16: CUDA only, with a gradient scaler)
    accumulate_steps: int = 1  # micro-batches per optimizer step


@dataclass
class HardwareConfig:
    device: str = "cpu"
    gpus: list[int] = field(default_factory=list)  # CUDA device indices; empty: the first `processes`
    processes: int = 1
    threads: int = 0  # CPU threads per process; 0: cores // processes


# Help text and limits of the [train] settings: the GUI's form and the validation both read them.
# A new TrainConfig field gets its line here (fields without one get a generic form row).
TRAIN_HELP: dict[str, tuple[str, float | None, float | None]] = {
    "epochs": ("passes over the training set", 1, 100_000),
    "batch_size": ("samples per optimizer step, over all processes", 1, 1_000_000),
    "epoch_steps": ("at most this many optimizer steps per epoch, each epoch's batches still drawn from the whole "
                    "shuffled training set: a quick look at a big model (Lightning's limit_train_batches; 0: every "
                    "batch)", 0, 1_000_000),
    "seed": ("random seed: the same seed gives the same run", 0, 2**31 - 1),
    "val_fraction": ("share of the training set held out for validation", 0.0, 0.9),
    "metric_interval": ("steps between points of the train curves (loss, accuracy, learning rate): 1 logs every "
                        "step as TensorBoard does, at some cost on fast models (the loop's only host syncs)",
                        1, 100_000),
    "checkpoint_every": ("epochs between checkpoints (0: only at the start and the end)", 0, 100_000),
    "checkpoint_minutes": ("also save a checkpoint after this many minutes of training, so a crash or a kill loses "
                           "at most that much (0: off)", 0.0, 100_000.0),
    "label_smoothing": ("label smoothing ε: targets become 1−ε on the class, ε/K spread over all (Szegedy 2016)",
                        0.0, 0.99),
    "grad_clip": ("clip the gradient's global L2 norm to this (0: off; Pascanu et al. 2013)", 0.0, 1e6),
    "grad_noise": ("gradient noise η: add N(0, η/(1+t)^0.55) to the gradient (0: off; Neelakantan 2015)", 0.0, 100.0),
    "ghost_batch": ("Ghost Batch Norm: batch statistics over virtual batches of this size (0: off; Hoffer 2017)",
                    0, 1_000_000),
    "early_stop_patience": ("stop after this many epochs without a better validation loss (0: off)", 0, 100_000),
    "early_stop_min_delta": ("smallest decrease of the validation loss that counts as better", 0.0, 1e6),
    "lr_scaling": ("linear scaling rule: learning rate × batch_size / base_batch (Goyal et al. 2017)", None, None),
    "base_batch": ("the batch size the learning rate was chosen for (linear scaling rule)", 1, 1_000_000),
    "batch_growth": ("multiply the batch size by this every batch_growth_every epochs, instead of decaying the "
                     "learning rate (Smith et al. 2018)", 1.0, 1000.0),
    "batch_growth_every": ("epochs between batch-size increases (0: off)", 0, 100_000),
    "landscape_every": ("epochs between live 2-D loss-landscape snapshots (0: off)", 0, 100_000),
    "sharpness_every": ("epochs between logging the top Hessian eigenvalue, sharpness/top_eig (0: off)",
                        0, 100_000),
    "histogram_every": ("steps between weight and gradient histograms of every layer, for the Histograms tab and "
                        "TensorBoard export (0: off)", 0, 1_000_000),
    "trajectory_snapshots": ("keep float16 weight snapshots at up to 10 epoch ends, so a trajectory landscape "
                             "works from any run of 2+ epochs", None, None),
    "attention_every": ("steps between attention snapshots of a Transformer (its weights and the attention maps of "
                        "a few validation inputs), so the Attention view replays how the heads formed; models "
                        "without attention keep none (0: off)", 0, 1_000_000),
    "keep_checkpoints": ("keep the newest N step checkpoints; older ones are deleted, step 0 stays (0: keep all)",
                         0, 100_000),
    "stall_timeout": ("seconds a process may make no progress (while not paused) before the run fails, naming "
                      "the stalled process (0: never)", 0, 7 * 24 * 3600),
    "precision": ("arithmetic of the forward pass and loss (torch.autocast): fp32; bf16 (bfloat16: half the "
                  "activation memory, float32's range; on a CPU without bfloat16 units it may be slower than "
                  "fp32); fp16 (float16 with a gradient scaler against underflow: CUDA only). Weights, gradients "
                  "and the optimizer stay float32 (Micikevicius et al. 2018)", None, None),
    "accumulate_steps": ("gradient accumulation: micro-batches of batch_size per optimizer step, so one step sees "
                         "batch_size × k samples (the global batch) while memory holds one micro-batch; with "
                         "several processes the gradients are all-reduced once per step", 1, 100_000),
}

# [train] settings that take one of a few words (the form shows a list).
TRAIN_CHOICES: dict[str, tuple[str, ...]] = {"precision": ("fp32", "bf16", "fp16")}

# Limits of the [hardware] counts (what the machine has is checked at launch: engine/training/machine_check.py).
HARDWARE_LIMITS: dict[str, tuple[int, int]] = {"processes": (1, 1024), "threads": (0, 1024)}


def train_params() -> list[Param]:
    """The [train] settings as typed parameters (for forms)."""
    kinds = {bool: "bool", int: "int", float: "float", str: "str", list: "ints"}
    out = []
    for f in fields(TrainConfig):
        default = getattr(TrainConfig(), f.name)
        help_, low, high = TRAIN_HELP.get(f.name, ("", None, None))
        if f.name in TRAIN_CHOICES:
            out.append(Param(f.name, "choice", default, help_, choices=TRAIN_CHOICES[f.name]))
            continue
        out.append(Param(f.name, kinds[type(default)], default, help_, low, high))
    return out


# The registries back the choice sections. They import nothing from this module (an entry with its values,
# ``Choice``, lives in core/contracts/registry.py), so this import is at the top: no cycle hidden in a function.
REGISTRIES: dict[str, Registry] = {"data": DATASETS, "model": MODELS, "optimizer": OPTIMIZERS, "schedule": SCHEDULES}
CHOICE_SECTIONS = ("data", "model", "optimizer", "schedule")


def default_choice(section: str, name: str) -> Choice:
    """An entry with its default parameters."""
    return Choice(name, REGISTRIES[section].get(name).defaults())


@dataclass
class RunConfig:
    data: Choice = field(default_factory=lambda: default_choice("data", "fashion_mnist_small"))
    model: Choice = field(default_factory=lambda: default_choice("model", "mlp"))
    optimizer: Choice = field(default_factory=lambda: default_choice("optimizer", "adam"))
    schedule: Choice = field(default_factory=lambda: default_choice("schedule", "constant"))
    train: TrainConfig = field(default_factory=TrainConfig)
    hardware: HardwareConfig = field(default_factory=HardwareConfig)

    # --- serialisation -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {s: getattr(self, s).to_dict() for s in CHOICE_SECTIONS}
        out["train"] = asdict(self.train)
        out["hardware"] = asdict(self.hardware)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], base: str | Path | None = None) -> RunConfig:
        """Build and validate a config; missing keys take defaults, bad ones raise ConfigError. A relative ``path``
        of an entry tagged ``file`` (a user's .py file, a local folder) is read from ``base`` (the config file's
        folder; the working folder when None) and kept absolute."""
        data = copy.deepcopy(data)
        unknown = sorted(set(data) - set(CHOICE_SECTIONS) - {"train", "hardware"})
        if unknown:
            raise ConfigError(
                f"unknown config section [{unknown[0]}]; sections are: "
                + ", ".join((*CHOICE_SECTIONS, "train", "hardware"))
            )
        cfg = cls()
        regs = REGISTRIES
        for section in CHOICE_SECTIONS:
            values = data.get(section, {})
            if not isinstance(values, dict):
                raise ConfigError(f"[{section}] must be a table of keys")
            name = values.pop("name", getattr(cfg, section).name)
            params = regs[section].resolve(str(name), values, section)
            _absolute_path(regs[section].get(str(name)).tags, params, base)
            setattr(cfg, section, Choice(str(name), params))
        cfg.train = _plain_section(TrainConfig, data.get("train", {}), "train")
        cfg.hardware = _plain_section(HardwareConfig, data.get("hardware", {}), "hardware")
        cfg.validate()
        return cfg

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    @classmethod
    def from_toml(cls, text: str, base: str | Path | None = None) -> RunConfig:
        try:
            return cls.from_dict(tomllib.loads(text), base)
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"the config is not valid TOML: {err}") from None

    @classmethod
    def load(cls, path: str | Path) -> RunConfig:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"cannot read config file {path}: {err.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"config file {path} is not a TOML text file (it holds binary data)") from None
        return cls.from_toml(text, path.parent)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_toml(), encoding="utf-8")

    # --- edits ---------------------------------------------------------------------------
    def with_overrides(self, assignments: list[str]) -> RunConfig:
        """Apply ``section.key=value`` strings (the CLI's ``--set``) and validate the result."""
        data = self.to_dict()
        regs = REGISTRIES
        # entry names first, so `optimizer.lr=... optimizer.name=sgd` keeps the lr whatever the order
        assignments = sorted(assignments, key=lambda a: a.split("=", 1)[0].strip().endswith(".name"), reverse=True)
        for item in assignments:
            if "".join(item.splitlines()) != item:  # a line break anywhere: its messages quote it, on one line
                raise ConfigError(f"--set takes one line, section.key=value; got {item!r}")
            key, sep, value = item.partition("=")
            section, dot, name = key.strip().partition(".")
            if not sep or not dot or not name:
                raise ConfigError(f"--set takes section.key=value, e.g. optimizer.lr=0.01; got {item!r}")
            if section not in data:
                raise ConfigError(f"unknown config section {section!r} in --set {item!r}")
            value = value.strip()
            if section in CHOICE_SECTIONS and name == "name":
                if value != data[section]["name"]:
                    regs[section].get(value)  # a clear error for an unknown name
                    data[section] = {"name": value}  # parameters of the old entry do not carry over
                continue
            table, _, sub = name.partition(".")
            if sub and section in CHOICE_SECTIONS:  # model.args.width=64: a key of a table (a user's arguments)
                inner = data[section].setdefault(table, {})
                if not isinstance(inner, dict):
                    raise ConfigError(f"{section}.{table} is not a table; --set {section}.{table}=value instead")
                inner[sub] = _parse_scalar(value)
                continue
            data[section][name] = _parse_scalar(value)
        return RunConfig.from_dict(data)

    def validate(self) -> None:
        hw = self.hardware
        if hw.device not in DEVICES:
            raise ConfigError(f"hardware.device must be one of {', '.join(DEVICES)}; got {hw.device!r}")
        for key, (low, high) in HARDWARE_LIMITS.items():
            if not low <= getattr(hw, key) <= high:
                raise ConfigError(f"hardware.{key} must be between {low} and {high}; got {getattr(hw, key)}")
        if hw.device == "cuda" and hw.gpus and len(hw.gpus) != hw.processes:
            raise ConfigError(
                f"hardware.gpus lists {len(hw.gpus)} GPUs but hardware.processes is {hw.processes}; "
                "use one process per GPU"
            )
        self._validate_precision()
        if self.train.batch_size < hw.processes:
            raise ConfigError(
                f"train.batch_size ({self.train.batch_size}) must be at least hardware.processes ({hw.processes})"
            )

    def _validate_precision(self) -> None:
        tr = self.train
        if tr.precision not in TRAIN_CHOICES["precision"]:
            raise ConfigError(f"train.precision must be one of {', '.join(TRAIN_CHOICES['precision'])}; "
                              f"got {tr.precision!r}")
        if tr.precision == "fp16" and self.hardware.device != "cuda":
            raise ConfigError("train.precision=fp16 needs a CUDA GPU (its gradient scaler guards float16's narrow "
                              "range there); on the CPU use bf16 or fp32")
        tags = REGISTRIES["optimizer"].get(self.optimizer.name).tags
        if tr.accumulate_steps > 1 and ("closure" in tags or "full_batch" in tags):
            raise ConfigError(f"optimizer {self.optimizer.name} takes whole-batch steps; set "
                              "train.accumulate_steps=1")
        if tr.precision == "fp16" and "closure" in tags:
            raise ConfigError(f"optimizer {self.optimizer.name} re-evaluates the loss in its step, which the fp16 "
                              "gradient scaler cannot do; use bf16 or fp32")

    def copy(self) -> RunConfig:
        return copy.deepcopy(self)


def _absolute_path(tags: tuple[str, ...], params: dict[str, Any], base: str | Path | None) -> None:
    """A relative ``path`` of a ``file`` entry made absolute (read from ``base``); a ``folder_or_id`` entry's only
    when that folder exists (otherwise it is a hub id, kept as written)."""
    path = str(params.get("path") or "")
    if not path or not ({"file", "folder_or_id"} & set(tags)):
        return
    given = Path(path).expanduser()
    full = given if given.is_absolute() else Path(base or Path.cwd()) / given
    if "file" in tags or full.exists():
        params["path"] = str(full.resolve())


def _parse_scalar(text: str) -> Any:
    """A --set value: TOML when it parses (numbers, booleans, lists, quoted strings), else raw text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _plain_section(kind: type, values: Any, section: str) -> Any:
    if not isinstance(values, dict):
        raise ConfigError(f"[{section}] must be a table of keys")
    names = {f.name: f for f in fields(kind)}
    obj = kind()
    for key, value in values.items():
        if key not in names:
            raise ConfigError(f"{section}.{key} is not a setting; allowed: {', '.join(names)}")
        default = getattr(obj, key)
        where = f"{section}.{key}"
        try:
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ValueError
            elif isinstance(default, int):
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                value = int(value)
            elif isinstance(default, float):
                value = float(value)
                if not math.isfinite(value):
                    raise ConfigError(f"{where} must be a finite number; got {value}")
            elif isinstance(default, list):
                value = split_ints(value)
            elif isinstance(default, str):
                value = str(value)
        except (TypeError, ValueError, OverflowError):
            raise ConfigError(f"{where} must be of type {type(default).__name__}; got {value!r}") from None
        _, low, high = TRAIN_HELP.get(key, ("", None, None)) if section == "train" else ("", None, None)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ConfigError(f"{where} must be between {low} and {high}; got {value!r}")
        setattr(obj, key, value)
    return obj
