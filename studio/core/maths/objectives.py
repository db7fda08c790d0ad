"""What the model's outputs mean: the loss to train on, the sums evaluation reports, and the summed losses
that landscapes and curvature evaluate at many points of weight space (one place for all of them).

Classification (class scores, cross-entropy with optional label smoothing, accuracy) or
regression (one number per output, mean squared error, no accuracy). A dataset says it is a
regression problem with ``ArrayData.meta["task"] = "regression"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import torch
from torch.nn import functional

IGNORE = -100  # a token target that does not count (padding; in a masked LM, the tokens not chosen)
LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (output, target) -> summed loss


def cross_entropy_sum(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Cross-entropy summed over the batch (in float32 whatever the autocast dtype)."""
    return functional.cross_entropy(output.float(), target, reduction="sum")


def correct_count(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (output.argmax(-1) == target).sum()


def mse_sum(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Squared error averaged over each sample's outputs, summed over the batch (the regression task's loss)."""
    total = functional.mse_loss(output.float(), target.view_as(output).float(), reduction="sum")
    return total * len(output) / max(output.numel(), 1)


class TaskLosses(TypedDict):
    """The keyword arguments the landscape evaluators take for a task."""

    loss_fn: LossFn
    correct_fn: LossFn | None


def token_cross_entropy_sum(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Outputs (B, T, V), targets (B, T) with ``IGNORE``: the batch's mean cross-entropy per counted token × B,
    so that the evaluators' division by the number of sequences gives the loss per token (exactly when the
    points are evaluated in one batch, as ``mse_sum`` does for outputs)."""
    flat_y = target.reshape(-1)
    counted = (flat_y != IGNORE).sum()
    total = functional.cross_entropy(output.reshape(-1, output.shape[-1]).float(), flat_y, ignore_index=IGNORE,
                                     reduction="sum")
    return total * len(target) / counted.clamp(min=1)


def token_correct_count(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Correct next tokens among the counted ones, scaled like ``token_cross_entropy_sum`` (accuracy per token)."""
    counted = target != IGNORE
    hits = ((output.argmax(-1) == target) & counted).sum()
    return hits * len(target) / counted.sum().clamp(min=1)


def task_losses(classification: bool = True, tokens: bool = False) -> TaskLosses:
    """The ``loss_fn``/``correct_fn`` keyword arguments of the landscape evaluators (core/landscape/surface.py)
    for a classification or a regression model, or one predicting a token at every position (``tokens``)."""
    if tokens:
        return {"loss_fn": token_cross_entropy_sum, "correct_fn": token_correct_count}
    if classification:
        return {"loss_fn": cross_entropy_sum, "correct_fn": correct_count}
    return {"loss_fn": mse_sum, "correct_fn": None}


class Classification:
    has_accuracy = True
    perplexity = False  # also report exp(loss) (next-word prediction)

    def __init__(self, label_smoothing: float = 0.0) -> None:
        self.label_smoothing = label_smoothing

    def loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The training loss (mean over the batch; smoothed targets when label_smoothing > 0)."""
        return functional.cross_entropy(out, y, label_smoothing=self.label_smoothing)

    def sums(self, out: torch.Tensor, y: torch.Tensor, loss: torch.Tensor | None = None) -> torch.Tensor:
        """(summed loss, correct, count) on the device; ``loss`` is a batch's mean training loss, else the
        plain cross-entropy is used (evaluation)."""
        n = torch.tensor(float(len(y)), device=out.device)
        if loss is None:
            loss = functional.cross_entropy(out, y)
        total = loss * n
        return torch.stack([total, (out.argmax(1) == y).sum().float(), n])


class Regression:
    has_accuracy = False

    def loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return functional.mse_loss(out, y.view_as(out))

    def sums(self, out: torch.Tensor, y: torch.Tensor, loss: torch.Tensor | None = None) -> torch.Tensor:
        n = torch.tensor(float(len(y)), device=out.device)
        if loss is None:  # the per-sample mean over the outputs, summed over the batch
            loss = functional.mse_loss(out, y.view_as(out))
        total = loss * n
        return torch.stack([total, torch.zeros((), device=out.device), n])


class NextWord(Classification):
    """Next-word prediction: classification over the vocabulary, also reported as perplexity = exp(loss)."""

    perplexity = True


class TokenPrediction(Classification):
    """A prediction at every position: outputs (B, T, V), targets (B, T) of token ids, ``IGNORE`` where a
    position does not count (padding, or the 85 % of tokens a masked LM did not choose). Loss, accuracy and
    perplexity are per counted token (a causal LM's next-token task, BERT's masked-LM task)."""

    perplexity = True

    def loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return functional.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1), ignore_index=IGNORE,
                                        label_smoothing=self.label_smoothing)

    def sums(self, out: torch.Tensor, y: torch.Tensor, loss: torch.Tensor | None = None) -> torch.Tensor:
        flat_out, flat_y = out.reshape(-1, out.shape[-1]), y.reshape(-1)
        counted = flat_y != IGNORE
        n = counted.sum().float()
        if loss is None:
            loss = functional.cross_entropy(flat_out.float(), flat_y, ignore_index=IGNORE)
        total = torch.where(n > 0, loss * n, torch.zeros_like(n))
        correct = ((flat_out.argmax(-1) == flat_y) & counted).sum().float()
        return torch.stack([total, correct, n])


def losses_of(task: Classification | Regression) -> TaskLosses:
    """``task_losses`` for a task object (``task_for``'s answer)."""
    return task_losses(task.has_accuracy, isinstance(task, TokenPrediction))


def task_for(meta: dict[str, Any], label_smoothing: float = 0.0) -> Classification | Regression:
    """The task a dataset asks for (its ``meta["task"]``: ``regression``, ``next_word``, ``tokens``;
    classification when absent)."""
    task = meta.get("task")
    if task == "regression":
        return Regression()
    if task == "tokens":
        return TokenPrediction(label_smoothing)
    return NextWord(label_smoothing) if task == "next_word" else Classification(label_smoothing)
