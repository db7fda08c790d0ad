"""What a training run needs in memory at the least, from its config alone (torch-free: the launcher and the GUI ask
before any process starts), and the refusal of a config that cannot fit.

A floor, never a guess above the truth: the parameters by formula (exact for the models here, the embeddings and
output layers over a vocabulary left out: their size is known only once the text is read), their gradients (the same
again), the optimizer's state (its multiple of the parameters: Adam 2×, SGD with momentum 1×, …) and the activations
of one micro-batch counted as the outputs of the main layers only (the memory view, core/estimates/memory.py,
measures all of it on a real step). Weights and gradients are float32 (mixed precision keeps float32 weights).

Models whose size depends on more than their settings (the convolutional ones, a transfer model) are not estimated
here: ``estimate`` returns None and nothing is refused. A config whose floor is more than the memory the machine can
give (RAM and swap within the container's limit for each CPU process; each GPU's free memory on CUDA) is refused in
one sentence naming both figures (``check_fits``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError
from studio.core.host import memory
from studio.core.numbers.byte_size import byte_size

FLOAT = 4  # bytes of a float32 weight or gradient
# Adam-like optimizers (first and second moments), momentum-like ones (one buffer); others: see optimizer_factor
_TWO_MOMENTS = ("adam", "adamw", "nadam", "lamb")
_ONE_BUFFER = ("momentum", "momentum_lr_inside", "nesterov", "adagrad", "lars")


def optimizer_factor(name: str, params: dict[str, Any]) -> float | None:
    """The optimizer state as a multiple of the parameters' bytes; None for one without a formula here."""
    if name in _TWO_MOMENTS:
        return {"fp32": 2.0, "bf16_first": 1.5, "bf16_both": 1.0}[params.get("state_dtype", "fp32")]
    if name == "amsgrad":
        return 3.0
    if name == "sgd":
        return 1.0 if params.get("momentum", 0.0) > 0 else 0.0
    if name in _ONE_BUFFER:
        return 1.0 if params.get("momentum", 1.0) > 0 or name == "adagrad" else 0.0
    if name == "rmsprop":
        return 1.0 + (params.get("momentum", 0.0) > 0) + bool(params.get("centered", False))
    if name in ("gd",):
        return 0.0
    return None


@dataclass(frozen=True)
class Footprint:
    """The least memory one training process needs (bytes)."""

    parameters: int  # how many (a count, not bytes)
    optimizer_factor: float  # the optimizer's state as a multiple of the parameters (0 when not known)
    activations: int  # of one micro-batch, at least

    @property
    def weights(self) -> int:
        return self.parameters * FLOAT

    @property
    def optimizer(self) -> int:
        return int(self.optimizer_factor * self.weights)

    @property
    def total(self) -> int:
        return 2 * self.weights + self.optimizer + self.activations  # weights, gradients, state, activations

    def describe(self) -> str:
        """"156 GiB: 36.4 GiB of weights (9.8 billion parameters), as much again of gradients, …"."""
        count = (f"{self.parameters / 1e12:,.1f} trillion" if self.parameters >= 1e12 else
                 f"{self.parameters / 1e9:.1f} billion" if self.parameters >= 1e9 else
                 f"{self.parameters / 1e6:.1f} million" if self.parameters >= 1e6 else f"{self.parameters:,}")
        state = f", {byte_size(self.optimizer)} of optimizer state" if self.optimizer else ""
        return (f"{byte_size(self.total)}: {byte_size(self.weights)} of weights ({count} parameters), as much again "
                f"of gradients{state} and at least {byte_size(self.activations)} of activations")


# --- parameters by formula ----------------------------------------------------------------------------------
def linear(inputs: int, outputs: int, bias: bool = True) -> int:
    return inputs * outputs + (outputs if bias else 0)


def mlp_parameters(inputs: int, widths: Sequence[int], outputs: int, batch_norm: bool = False) -> int:
    """An MLP ``inputs → widths… → outputs`` (core/models/builders.build_mlp)."""
    sizes = [inputs, *widths]
    hidden = sum(linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
    return hidden + linear(sizes[-1], outputs) + (2 * sum(widths) if batch_norm else 0)


def transformer_stack(d_model: int, layers: int) -> int:
    """``layers`` pre-LN blocks and the final LayerNorm (core/models/transformer.Stack): per block two LayerNorms,
    the attention's qkv and projection, a 4× MLP: 12·d² + 13·d."""
    return layers * (12 * d_model * d_model + 13 * d_model) + 2 * d_model


def recurrent(cell: str, embedding: int, hidden: int, layers: int) -> int:
    """torch's LSTM (4 gates) or GRU (3), each gate with two biases."""
    gates = 4 if cell == "lstm" else 3
    return sum(gates * (hidden * (embedding if i == 0 else hidden) + hidden * hidden + 2 * hidden)
               for i in range(layers))


def parameters(model: str, params: dict[str, Any], inputs: int, outputs: int, vocab: int = 0,
               image: tuple[int, int, int] | None = None) -> int | None:
    """The parameters of ``model`` built with ``params`` (its registry defaults filled in) on ``inputs`` features and
    ``outputs`` classes; ``vocab``: the vocabulary of a text model (0: its embeddings and output layer left out);
    ``image``: (channels, height, width) for a ViT. None for a model without a formula here."""
    p = params
    if model in ("linear", "linear_neuron"):
        return linear(inputs, outputs, bool(p.get("bias", True)))
    if model == "mlp":
        return mlp_parameters(inputs, [int(w) for w in p["widths"]], outputs, bool(p.get("batch_norm")))
    if model in ("lstm_lm", "gru_lm"):
        e, h = int(p["embedding"]), int(p["hidden"])
        body = recurrent(model[:3] if model == "gru_lm" else "lstm", e, h, int(p["layers"]))
        return body + (vocab * e + linear(h, vocab) if vocab else 0)
    d = int(p.get("d_model", 0))
    if model == "gpt_lm":
        out = transformer_stack(d, int(p["layers"])) + int(p["context"]) * d
        return out + (vocab * d * (1 if p.get("tie_weights", True) else 2) if vocab else 0)
    if model in ("bert_mlm", "bert_classifier"):
        encoder = transformer_stack(d, int(p["layers"])) + int(p["context"]) * d + vocab * d
        if model == "bert_mlm":
            return encoder + linear(d, d) + 2 * d + vocab
        return encoder + linear(d, outputs)
    if model == "vit":
        patch = int(p["patch"])
        channels, rows, cols = image or (1, patch, patch)
        tokens = (rows // patch) * (cols // patch) + (p.get("pool", "cls") == "cls")
        extra = d if p.get("pool", "cls") == "cls" else 0
        return (channels * d * patch * patch + d + extra + tokens * d + transformer_stack(d, int(p["depth"]))
                + linear(d, outputs))
    return None


def activation_floor(model: str, params: dict[str, Any], micro: int, outputs: int, tokens: int,
                     precision: str = "fp32") -> int:
    """Bytes of the main layers' outputs for one micro-batch of ``micro`` samples (``tokens`` per sample for a
    Transformer): a floor of what autograd keeps for backward."""
    size = FLOAT if precision == "fp32" else 2
    p = params
    if model == "mlp":
        return micro * (sum(int(w) for w in p["widths"]) + outputs) * size
    if model in ("gpt_lm", "bert_mlm", "bert_classifier", "vit"):
        layers = int(p.get("layers", p.get("depth", 1)))
        return micro * tokens * layers * 15 * int(p["d_model"]) * size  # per block: ln, qkv, proj, ln, MLP 4+4+1
    if model in ("lstm_lm", "gru_lm"):
        return micro * int(p["hidden"]) * int(p["layers"]) * size
    return micro * outputs * size


# --- a config's floor -----------------------------------------------------------------------------------------
def _data_shape(cfg: RunConfig) -> tuple[int, int, tuple[int, int, int] | None]:
    """(input features, classes, image shape or None) as far as they are known without loading the data; the
    unknown as 1 (a floor)."""
    from studio.core.config.data_fit import image_shape
    from studio.core.datasets.cache import entries
    from studio.core.datasets.known import KNOWN

    name = cfg.data.name
    image = image_shape(name)
    classes = 10 if name == "fashion_mnist_small" else len(KNOWN[name].classes) if name in KNOWN else 0
    if not classes:
        manifest = next((m for m in entries() if m.get("name") == name), {})
        classes = int(manifest.get("num_classes") or 1)
    return (math.prod(image) if image else 1), max(1, classes), image


def estimate(cfg: RunConfig) -> Footprint | None:
    """The least memory one process of ``cfg``'s run needs; None for a model this module cannot size."""
    from studio.core.config.global_batch import global_batch
    from studio.core.models import MODELS

    entry = MODELS.get(cfg.model.name)
    params = {**entry.defaults(), **cfg.model.params}
    inputs, classes, image = _data_shape(cfg)
    count = parameters(cfg.model.name, params, inputs, classes, image=image)
    if count is None:
        return None
    micro = global_batch(cfg)[0]
    tokens = int(params.get("context", 0)) or 1
    if cfg.model.name in ("bert_mlm", "bert_classifier"):
        tokens = min(tokens, int(cfg.data.params.get("max_len", 32)) + 1)
    elif cfg.model.name == "vit" and image:
        tokens = (image[1] // int(params["patch"])) * (image[2] // int(params["patch"])) + 1
    factor = optimizer_factor(cfg.optimizer.name, cfg.optimizer.params) or 0.0
    return Footprint(count, factor, activation_floor(cfg.model.name, params, micro, classes, tokens,
                                                     cfg.train.precision))


def room(device: str, processes: int, gpus: Sequence[int] = ()) -> tuple[int, str] | None:
    """(bytes one process can have, where, in words) for ``processes`` processes on ``device``; None when not known."""
    if device == "cuda":
        free = memory.gpu_free()
        if not free:
            return None
        free = memory.visible(free, os.environ.get("CUDA_VISIBLE_DEVICES"))
        used = [free[g] for g in (gpus or range(processes)) if g < len(free)]
        return (min(used), "free on the GPU") if used else None
    ram = memory.available_ram()
    if ram is None:
        return None
    each = ram // max(1, processes)
    return each, ("available on this machine (RAM and swap)" if processes == 1 else
                  f"available to each of {processes} processes (this machine's RAM and swap, shared)")


def check_fits(cfg: RunConfig) -> Footprint | None:
    """Refuse ``cfg`` in one sentence when one of its processes needs more memory than it can have; its footprint
    otherwise (None when it cannot be told)."""
    try:
        need = estimate(cfg)
    except (LookupError, TypeError, ValueError):  # settings this floor cannot read (a model of one's own): no floor
        return None
    if need is None:
        return None
    hw = cfg.hardware
    where = room(hw.device, hw.processes, hw.gpus)
    if where is not None and need.total > where[0]:
        raise ConfigError(f"this {cfg.model.name} needs at least {need.describe()}, more than the "
                          f"{byte_size(where[0])} {where[1]}; make the model smaller (fewer or narrower layers)")
    return need


def check_mlp(inputs: int, widths: Sequence[int], outputs: int, batch: int, processes: int = 1,
              device: str = "cpu", factor: float = 0.0, what: str = "the MLP") -> None:
    """The same refusal for the labs' MLPs (the Parallelism lab, asynchronous SGD, the demos): ``processes`` each
    holding the whole model."""
    need = Footprint(mlp_parameters(inputs, widths, outputs), factor,
                     activation_floor("mlp", {"widths": list(widths)}, batch, outputs, 1))
    where = room(device, processes)
    if where is not None and need.total > where[0]:
        raise ConfigError(f"{what} of widths {','.join(map(str, widths))} needs at least {need.describe()}, more "
                          f"than the {byte_size(where[0])} {where[1]}; use narrower or fewer layers")
