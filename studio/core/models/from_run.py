"""Transfer learning from a Studio run, offline (``model.init_from=RUN`` on an image model): the model starts from
the weights of a finished run of the same model and shape — trained by Studio on a source task — with a new head for
this dataset's classes, its base frozen for ``frozen_epochs`` epochs, then fine-tuned at the learning rate ×
``base_lr_factor`` (the two stages of ``transfer``, whose ImageNet weights need the torch hub cache).

The parent run is read only by ``core/runs/lineage.py``: the builder takes its final checkpoint's path as a value
(``init_weights``), as ``bert_classifier`` does; built without it (a resume, an evaluation, a summary) the weights
come from the run's own checkpoint instead. Every tensor but the head's is copied (Yosinski et al. 2014: the lower
layers' features are general, the last layer is specific to the source's classes).
"""

from __future__ import annotations

import torch
from torch import nn

from studio.core.errors import ConfigError
from studio.core.models.transfer import TransferNet, last_linear

WRAPPERS = ("module.", "_orig_mod.")


def from_run(net: nn.Module, model: str, num_classes: int, init_from: str = "", init_weights: str = "",
             frozen_epochs: int = 0, base_lr_factor: float = 1.0) -> nn.Module:
    """``net`` itself without ``init_from``; else ``net`` with a new head in two-stage fine-tuning, its base loaded
    from ``init_weights`` when given."""
    if not init_from:
        return net
    wrapped = TransferNet(net, last_linear(net, model), num_classes, 0, frozen_epochs, base_lr_factor,
                          grey_to_rgb=False)
    if init_weights:
        load_base(wrapped, init_weights, init_from)
    return wrapped


def plain_key(key: str) -> str:
    """A checkpoint key without DDP's/compile's wrappers or a run-transfer model's ``net.``."""
    changed = True
    while changed:
        changed = False
        for prefix in (*WRAPPERS, "net."):
            if key.startswith(prefix):
                key, changed = key.removeprefix(prefix), True
    return key


def base_state(state: dict[str, torch.Tensor], head: str) -> dict[str, torch.Tensor]:
    """The tensors of a checkpoint's model state that are not the head ``head`` (a module name), by plain key."""
    return {plain_key(k): v for k, v in state.items() if not plain_key(k).startswith(head + ".")}


def load_base(model: TransferNet, path: str, run_id: str) -> None:
    """Copy every tensor of run ``run_id``'s final weights (at ``path``) but its head into ``model``'s base; one
    sentence when they do not fit."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)["model"]
        source = base_state(state, model.head_name)
        own = {k: v for k, v in model.net.state_dict().items() if not k.startswith(model.head_name + ".")}
        missing = sorted(set(own) - set(source))
        if missing:
            raise KeyError(f"it has no {missing[0]}")
        wrong = [k for k in own if tuple(own[k].shape) != tuple(source[k].shape)]
        if wrong:
            raise ValueError(f"{wrong[0]} is {tuple(source[wrong[0]].shape)}, here "
                             f"{tuple(own[wrong[0]].shape)}")
        model.net.load_state_dict({k: source[k] for k in own}, strict=False)
    except (OSError, RuntimeError, KeyError, TypeError, ValueError) as err:
        text = str(err.args[0]) if err.args else type(err).__name__
        raise ConfigError(f"the weights of run {run_id} do not fit this model (another model, shape or image "
                          f"size: {text.splitlines()[0][:160]})") from None
