"""Attention snapshots of a Transformer while it trains, so the Attention view replays how its heads formed.

Every ``train.attention_every`` steps (default 50; 0: off), at the start and at the end, rank 0 writes
``run_dir/attention/step_XXXXXXX.pt`` (``core/contracts/layout.py``), atomically:

- ``model``: the weights at that step in float16 (models up to ``MAX_PARAMS`` parameters), so the view can
  compute the maps of any input a person types or picks later, at any snapshot;
- ``probe_x`` / ``probe_index``: the first ``PROBES`` validation inputs, raw (uint8 images or token ids), and
  ``maps``: their attention, one float16 ``(PROBES, heads, T, T)`` tensor per layer, so the slider over steps is
  instant for them.

Models without attention layers (``core/models/transformer.attention_layers``) keep none. When a run passes
``MAX_FILES`` snapshots, every other one is deleted and the interval doubles, so a long run stays bounded.
Disk cost: the default ``vit`` on 28×28 images (0.2 M parameters, 17 tokens, 4 layers × 4 heads) is about
0.47 MB per snapshot (468,588 bytes: 0.41 MB of weights, 37 kB of maps).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from studio.core.contracts import layout
from studio.core.models.transformer import attention_of, has_attention
from studio.engine.callbacks.base import Callback, every
from studio.engine.loop.trainer import Trainer

PROBES = 4  # validation inputs whose maps every snapshot keeps
MAX_PARAMS = 5_000_000  # above this only the probe maps are kept (10 MB of float16 weights per snapshot is enough)
MAX_FILES = 200  # past this, thin to every other snapshot and double the interval


def half(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A state dict on the CPU with floating tensors in float16."""
    return {k: (v.detach().half() if v.is_floating_point() else v.detach()).cpu() for k, v in state.items()}


@torch.no_grad()
def probe_maps(net: torch.nn.Module, x: torch.Tensor) -> list[torch.Tensor]:
    """The attention of ``net`` on the (normalised) batch ``x``: one ``(B, heads, T, T)`` tensor per layer, in
    eval mode (no dropout); the model's mode is restored."""
    was = net.training
    net.eval()
    try:
        return [w.float() for w in attention_of(net, x)]
    finally:
        net.train(was)


class AttentionSnapshots(Callback):
    """Writes weights and probe attention maps every ``every`` steps (rank 0; models with attention only)."""

    stage = "observe"

    def __init__(self, run_dir: str | Path, every: int) -> None:
        self.run_dir, self.every = Path(run_dir), every
        self.enabled = every > 0
        self.last_saved = -1
        self.keep_weights = True
        self.probe_x: torch.Tensor | None = None  # raw, on the CPU
        self.probe_in: torch.Tensor | None = None  # normalised, on the device

    def describe(self) -> str:
        return (f"weights and probe attention maps {every(self.every, 'step')}, at the start and the end (models "
                "with attention layers only)")

    def on_train_start(self, t: Trainer) -> None:
        self.enabled = self.enabled and t.ctx.is_main and has_attention(t.net)
        if not self.enabled:
            return
        self.keep_weights = sum(p.numel() for p in t.net.parameters()) <= MAX_PARAMS
        data = t.val_data if len(t.val_data) else t.test_data
        count = min(PROBES, len(data))
        index = torch.arange(count, device=data.x.device)
        self.probe_x = data.x[index].cpu()
        self.probe_in = data.normalise(data.x[index])
        existing = layout.list_attention(self.run_dir)
        if len(existing) >= MAX_FILES:  # a resumed long run: keep thinning from where it was
            self.every *= 2 ** (len(existing) // MAX_FILES)
        if not getattr(t, "resumed", False) or not existing:
            self.save(t)

    def on_step_end(self, t: Trainer) -> None:
        if self.enabled and t.step % self.every == 0:
            self.save(t)

    def on_train_end(self, t: Trainer) -> None:
        if self.enabled and t.step != self.last_saved:
            self.save(t)

    def save(self, t: Trainer) -> None:
        from studio.engine.loop.checkpoints import atomic_save

        assert self.probe_in is not None and self.probe_x is not None
        maps = [m.half().cpu() for m in probe_maps(t.net, self.probe_in)]
        record: dict[str, Any] = {"step": t.step, "epoch": t.epochs_done, "maps": maps, "probe_x": self.probe_x,
                                  "probe_index": list(range(len(self.probe_x)))}
        if self.keep_weights:
            record["model"] = half(t.net.state_dict())
        folder = layout.attention_dir(self.run_dir)
        folder.mkdir(parents=True, exist_ok=True)
        atomic_save(record, layout.attention_path(self.run_dir, t.step))
        self.last_saved = t.step
        self._thin()

    def _thin(self) -> None:
        """Past ``MAX_FILES`` snapshots: delete every other one (the first and the newest stay), double the
        interval."""
        refs = layout.list_attention(self.run_dir)
        if len(refs) <= MAX_FILES:
            return
        for ref in refs[1:-1:2]:
            ref.path.unlink(missing_ok=True)
        self.every *= 2


def attention_callbacks(cfg: Any, run_dir: str | Path) -> list[Callback]:
    """The snapshot writer when ``train.attention_every`` > 0 and the run has a directory (it switches itself
    off for models without attention layers)."""
    every = int(getattr(cfg.train, "attention_every", 0) or 0)
    return [AttentionSnapshots(run_dir, every)] if run_dir and every > 0 else []
