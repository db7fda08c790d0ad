"""Micikevicius et al. 2018 (bf16: Kalamkar et al. 2019): training with a 16-bit forward pass and float32 master
weights reaches the float32 accuracy; without the master copy, small updates are lost."""

from __future__ import annotations

import time
from typing import Any

from studio.core.checks.bands import close_to
from studio.core.checks.base import Measure, PaperCheck, Reproduction
from studio.core.checks.paper import _precision_runs as runs
from studio.core.checks.stats import over_seeds, paired, seeds_of

SEEDS, EPOCHS = 6, 4
TOLERANCE = 1.0  # points: bf16's mean must be within this of fp32's, with 95 % confidence

CHECK = PaperCheck(
    name="micikevicius_mixed_precision",
    claim="Mixed-precision training (a 16-bit forward pass, float32 master weights) reaches the accuracy of "
          "float32 training: the difference is no larger than a change of seed.",
    paper="Micikevicius, Narang, Alben, Diamos, Elsen, Garcia, Ginsburg, Houston, Kuchaiev, Venkatesh & Wu 2018, "
          "'Mixed Precision Training' (ICLR), Table 1; bfloat16: Kalamkar et al. 2019, 'A Study of BFLOAT16 for "
          "Deep Learning Training'",
    paper_setup="ImageNet CNNs (AlexNet, VGG-D, GoogLeNet, Inception, ResNet-50) trained in fp16 with float32 master "
                "weights and loss scaling: top-1 within a few tenths of a point of float32, either side (Table 1); "
                "bfloat16 needs no loss scaling and matches float32 as well (Kalamkar et al.). Without the float32 "
                "master copy, updates smaller than a weight's resolution vanish and accuracy drops (§3.1).",
    our_setup=f"Scaled down. The catalog MLP 784-128-128-10 on the 10,000 training images of the "
              f"bundled Fashion-MNIST subset, Adam lr {runs.LR:g}, batch {runs.BATCH}, {EPOCHS} epochs, tested on "
              f"2,000 images; bf16 = torch.autocast(cpu, bfloat16) around forward and loss as the training loop's "
              f"precision=bf16, the weights and Adam float32. {SEEDS} seeds, fp32 and bf16 from the same start and "
              f"batches (paired). Pass: |mean bf16 − fp32| + 95 % margin ≤ {TOLERANCE:g} point, and the mean "
              f"difference no larger than the fp32 runs' seed-to-seed standard deviation. Scaled down: an MLP on "
              f"28×28 clothes instead of ImageNet CNNs, bf16 (the CPU's 16-bit type) instead of fp16 with loss "
              f"scaling; about 60 s.",
    runner="studio.core.checks.paper.micikevicius_mixed_precision:run",
    budget_s=120.0,
)


def run(progress: Any = None, seeds: int = SEEDS, first_seed: int = 0, epochs: int = EPOCHS,
        train_samples: int = 0, master_weights: bool = True) -> Reproduction:
    """fp32 and bf16 per seed; the paired difference against the tolerance and the seed spread.

    ``master_weights=False`` breaks the set-up: bf16 weights and optimizer state, no float32 copy.
    """
    started = time.perf_counter()
    data = runs.data(train_samples)
    fp32, bf16 = [], []
    for i, seed in enumerate(seeds_of(first_seed, seeds)):
        if progress is not None:
            progress(i / seeds, f"seed {seed}: fp32, then bf16")
        fp32.append(runs.accuracy(runs.train(data, seed, epochs), data))
        bf16.append(runs.accuracy(runs.train(data, seed, epochs, "bf16", master_weights), data))
    diff = paired(bf16, fp32, over="seeds").scaled(100)
    spread = over_seeds(fp32).scaled(100)
    sd = spread.se * spread.n ** 0.5
    measures = (
        close_to("test accuracy, bf16 − fp32 (points)", diff, 0.0, TOLERANCE,
                 "a few tenths of a point either side (Table 1)"),
        Measure.holds("|mean bf16 − fp32| against the fp32 seed spread (s.d., points)", abs(diff.mean),
                      abs(diff.mean) <= sd, "within run-to-run variation", f"≤ {sd:.3g} (s.d. of {spread.n} fp32 "
                      f"seeds, mean {spread.mean:.4g} %)"),
    )
    details = {"fp32_acc": fp32, "bf16_acc": bf16, "difference_points": diff.to_dict(), "fp32_sd_points": sd,
               "seeds": list(seeds_of(first_seed, seeds)), "master_weights": master_weights,
               "wall_s": round(time.perf_counter() - started, 2)}
    return Reproduction(measures, details)
