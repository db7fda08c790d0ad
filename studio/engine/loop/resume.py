"""What a checkpoint holds so a run can continue exactly where it stopped, and putting it back.

Saved: the scheduler, the fp16 gradient scaler's state, the loop's position (epoch, batches done in it: always
an optimizer-step boundary), the running loss sums, every rank's RNG states (dropout, augmentation), and the
state of callbacks that keep some (``state_dict`` / ``load_state_dict``: early stopping, the convergence check,
gradient noise), each under the ``state_key`` it declares (engine/callbacks/base.py; checkpoints on disk use them).
The model, the optimizer and the counters are the checkpoint's plain keys. The data order needs nothing: each
epoch's shuffle is seeded by (seed, epoch), so skipping the batches already done gives the same order.
"""

from __future__ import annotations

from typing import Any

from studio.engine.loop.checkpoints import load_weights_into, resume_position, set_rng_state
from studio.engine.loop.trainer import Trainer


def training_state(t: Trainer, rng: list[dict[str, Any]]) -> dict[str, Any]:
    callbacks = {key: cb.state_dict() for cb in t.callbacks  # type: ignore[attr-defined]  # a stateful one's
                 if (key := state_key(cb))}
    return {
        "version": 1,
        "scheduler": t.scheduler.state_dict(),
        "position": {"epoch": t.epoch, "batch": t.batch_in_epoch, "world_size": t.ctx.world_size},
        "epoch_sums": t.epoch_sums.detach().cpu(), "window": t.window.detach().cpu(),
        "rng": rng, "callbacks": callbacks, "grad_scaler": t.precision.state_dict(),
        "summary": {k: v for k, v in t.summary.items() if isinstance(v, (int, float, str))},
    }


def restore(t: Trainer, state: dict[str, Any], path: str = "the checkpoint") -> None:
    """Put a checkpoint's state back into a freshly built trainer (call after every callback exists)."""
    resume = state.get("resume") or {}
    load_weights_into(t.net, state["model"], path)
    if "optimizer" in state:
        t.optimizer.load_state_dict(state["optimizer"])
    if "scheduler" in resume:
        t.scheduler.load_state_dict(resume["scheduler"])
    t.precision.load_state_dict(resume.get("grad_scaler") or {})  # fp16's loss scale, where it learnt one
    t.step = int(state.get("step", 0))
    t.epochs_done = int(state.get("epoch", 0))
    t.start_epoch, t.skip_batches = resume_position(state)
    t.epoch = t.start_epoch
    if "epoch_sums" in resume:
        t.epoch_sums.copy_(resume["epoch_sums"].to(t.epoch_sums.device))
        t.window.copy_(resume["window"].to(t.window.device))
    if resume.get("summary"):
        t.summary.update(resume["summary"])
    saved = resume.get("callbacks") or {}
    for cb in t.callbacks:
        key = state_key(cb)
        if key and key in saved and hasattr(cb, "load_state_dict"):
            cb.load_state_dict(saved[key])
    t.resumed = True
    rngs = resume.get("rng") or []
    _restore_sums(t, rngs)
    if rngs:  # after the callbacks' on_train_start, which may draw random numbers in a fresh run too
        mine = rngs[t.ctx.rank] if t.ctx.rank < len(rngs) else rngs[0]
        t.restore_rng = lambda: set_rng_state(mine, t.ctx.device)


def state_key(cb: object) -> str | None:
    """The key a callback's checkpoint state is kept under; None for one that keeps none."""
    return getattr(cb, "state_key", None) if hasattr(cb, "state_dict") else None


def _restore_sums(t: Trainer, rngs: list[dict[str, Any]]) -> None:
    """Each rank's own running loss sums (the epoch's loss is their all-reduced sum, so rank 0's alone is not
    enough); with another world size, rank 0 takes the ranks' total and the others start at zero."""
    if not rngs or "epoch_sums" not in rngs[0]:
        return  # an older checkpoint: rank 0's sums only (restored above)
    if len(rngs) == t.ctx.world_size:
        mine = rngs[t.ctx.rank]
        sums, window = mine["epoch_sums"], mine["window"]
    elif t.ctx.rank == 0:
        sums, window = sum(r["epoch_sums"] for r in rngs), sum(r["window"] for r in rngs)
    else:
        sums, window = t.epoch_sums.new_zeros(t.epoch_sums.shape), t.window.new_zeros(t.window.shape)
    t.epoch_sums.copy_(sums.to(t.epoch_sums.device))
    t.window.copy_(window.to(t.window.device))
