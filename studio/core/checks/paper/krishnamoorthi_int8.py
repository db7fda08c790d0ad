"""Krishnamoorthi 2018 / Jacob et al. 2018: 8-bit integer weights and activations, after training, cost under a
point of accuracy; a much coarser grid does not."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from studio.core.checks.bands import below
from studio.core.checks.base import PaperCheck, Reproduction
from studio.core.checks.paper import _precision_runs as runs
from studio.core.checks.stats import paired, seeds_of

if TYPE_CHECKING:
    from torch import nn

SEEDS, EPOCHS = 6, 4
MAX_LOSS = 1.0  # points

CHECK = PaperCheck(
    name="krishnamoorthi_int8",
    claim="Quantising a trained network to 8-bit integers after training (no retraining) loses less than one "
          "point of accuracy.",
    paper="Krishnamoorthi 2018, 'Quantizing deep convolutional networks for efficient inference: A whitepaper' "
          "(post-training quantisation, §3); Jacob et al. 2018, 'Quantization and Training of Neural Networks "
          "for Efficient Integer-Arithmetic-Only Inference' (CVPR)",
    paper_setup="ImageNet classifiers (MobileNet, Inception, ResNet) quantised after training, weights and "
                "activations 8 bits: ResNets and Inception lose a few tenths of a point of top-1 (per-channel "
                "weights); with 4-bit weights post-training quantisation loses far more (§3).",
    our_setup=f"Scaled down. The catalog MLP 784-128-128-10 trained in float32 on the 10,000 "
              f"training images of the bundled Fashion-MNIST subset (Adam lr {runs.LR:g}, batch {runs.BATCH}, "
              f"{EPOCHS} epochs), then quantised as Studio's compression task does for a model without "
              f"convolutions: torch.ao.quantization.quantize_dynamic, int8 weights, activations quantised on the "
              f"fly. Test accuracy on 2,000 images before and after, paired by seed, {SEEDS} seeds. Pass: mean "
              f"loss + 95 % margin < {MAX_LOSS:g} point. Scaled down: an MLP on 28×28 clothes instead of ImageNet "
              f"CNNs, dynamic instead of static quantisation; about 30 s.",
    runner="studio.core.checks.paper.krishnamoorthi_int8:run",
    budget_s=90.0,
)


def run(progress: Any = None, seeds: int = SEEDS, first_seed: int = 0, epochs: int = EPOCHS,
        train_samples: int = 0, bits: int = 8) -> Reproduction:
    """Per seed: the float32 accuracy and the int8 one; the paired loss in points.

    ``bits`` < 8 breaks the set-up: each weight tensor rounded to a symmetric ``bits``-bit grid (the arithmetic
    int8 does, coarser), activations float.
    """
    started = time.perf_counter()
    data = runs.data(train_samples)
    fp32, quantised = [], []
    for i, seed in enumerate(seeds_of(first_seed, seeds)):
        if progress is not None:
            progress(i / seeds, f"seed {seed}: float32 training, then {bits}-bit weights")
        model = runs.train(data, seed, epochs)
        fp32.append(runs.accuracy(model, data))
        quantised.append(runs.accuracy(quantise(model, bits), data))
    loss = paired(fp32, quantised, over="seeds").scaled(100)
    measures = (below(f"test accuracy lost by {bits}-bit quantisation (points)", loss, MAX_LOSS,
                      "under a point at 8 bits (§3)"),)
    details = {"fp32_acc": fp32, "quantised_acc": quantised, "loss_points": loss.to_dict(), "bits": bits,
               "seeds": list(seeds_of(first_seed, seeds)), "wall_s": round(time.perf_counter() - started, 2)}
    return Reproduction(measures, details)


def quantise(model: nn.Module, bits: int) -> nn.Module:
    """An int8 copy (``bits`` = 8: torch's dynamic quantisation of the Linear layers, as Studio's compression
    task), or the weights rounded to ``bits`` bits, symmetric, one scale per tensor."""
    import copy
    import warnings

    import torch
    from torch import nn

    model = copy.deepcopy(model).cpu().eval()
    if bits == 8:
        from torch.ao import quantization as tq

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.ao.quantization's deprecation notice
            return tq.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    levels = 2 ** (bits - 1) - 1
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Linear):
                scale = module.weight.abs().max() / levels
                module.weight.copy_(torch.round(module.weight / scale) * scale)
    return model
