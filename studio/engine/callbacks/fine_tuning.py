"""Two-stage fine-tuning of a transfer-learning model (studio/core/models/transfer.py), as a callback."""

from __future__ import annotations

from torch import nn
from torch.nn.parallel import DistributedDataParallel

from studio.core.contracts import protocol
from studio.engine.callbacks.base import Callback
from studio.engine.loop.distributed import DistContext
from studio.engine.loop.trainer import Trainer


def wrap_model(net: nn.Module, ctx: DistContext) -> nn.Module:
    """The module the loop calls: ``net`` itself, or its DDP wrapper over several processes."""
    if not ctx.distributed:
        return net
    return DistributedDataParallel(net, device_ids=[ctx.device.index] if ctx.device.type == "cuda" else None)


class TwoStageFineTune(Callback):
    """At the start of epoch ``frozen_epochs`` (counting from 0), unfreeze the model's base.

    The base's parameter group already has the lower learning rate; DDP is rebuilt because it only
    synchronises the parameters that were trainable when it was made.
    """

    stage = "fine_tune"

    def __init__(self, frozen_epochs: int) -> None:
        self.frozen_epochs = frozen_epochs

    def describe(self) -> str:
        if self.frozen_epochs <= 0:
            return "nothing to do: the model's base trains from the start (frozen_epochs 0)"
        return f"only the new head trains until the base is unfrozen at the start of epoch {self.frozen_epochs + 1}"

    def on_epoch_start(self, t: Trainer) -> None:
        if t.epoch != self.frozen_epochs or not getattr(t.net, "base_frozen", False):
            return
        t.net.freeze_base(False)  # type: ignore[operator]  # a TransferNet (checked above)
        t.model = wrap_model(t.net, t.ctx)
        rates = ", ".join(f"{g['lr']:.3g}" for g in t.optimizer.param_groups)
        t.emit(protocol.log(t.run_id, f"fine-tuning stage 2 from epoch {t.epoch + 1}: the base is unfrozen "
                                      f"(learning rates head, base: {rates})"))
