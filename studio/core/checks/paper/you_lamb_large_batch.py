"""You et al. 2020: at a large batch, LAMB (Adam's update scaled per layer by a trust ratio, with warm-up and
polynomial decay) keeps more of the small-batch accuracy than Adam given the same recipe and a tuned rate."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from studio.core.checks.bands import above
from studio.core.checks.base import PaperCheck, Reproduction
from studio.core.checks.stats import over_seeds, paired, seeds_of

if TYPE_CHECKING:
    from studio.core.demos.training import Data, Split

SMALL, LARGE = 64, 2048
EPOCHS, SEEDS = 10, 4
WARMUP = 0.1  # share of the steps spent warming up (You et al.: a few epochs of their run)
ADAM_GRID = (2e-3, 5e-3, 1e-2)
LAMB_GRID = (0.03, 0.06, 0.1)
VALIDATION = 1000  # training images held out to pick each optimizer's rate

CHECK = PaperCheck(
    name="you_lamb_large_batch",
    claim="At a large batch and a fixed number of epochs, LAMB (layer-wise trust ratios) reaches a higher accuracy "
          "than Adam with the same warm-up, decay and a tuned learning rate; the small-batch accuracy is the "
          "target.",
    paper="You, Li, Reddi, Hseu, Kumar, Bhojanapalli, Song, Demmel, Keutzer & Hsieh 2020, 'Large Batch "
          "Optimization for Deep Learning: Training BERT in 76 minutes' (ICLR), §4–5",
    paper_setup="BERT pretraining at batch 32K (64K/32K mixed) and ResNet-50 on ImageNet at batch 16K and more, a "
                "fixed epoch budget: LAMB with linear warm-up, polynomial decay and a tuned rate keeps the "
                "small-batch baseline's accuracy (BERT F1 ≈ 91, ResNet-50 top-1 ≈ 76–77 %), where Adam and AdamW "
                "with a grid of rates and the same schedule fall short.",
    our_setup=f"At CPU scale what is shown is the direction, not 'the same as the small batch'. "
              f"The catalog MLP 784-128-128-10 on 9,000 images of the bundled Fashion-MNIST subset (1,000 more "
              f"held out to pick each optimizer's rate), {EPOCHS} epochs. Batch {LARGE} (23 % of the set, 4 steps "
              f"an epoch): LAMB (Studio's, trust ratio ‖w‖/‖u‖) and Adam, both with linear warm-up over "
              f"{WARMUP:.0%} of the steps then the poly schedule (power 1), each at its best rate on the held-out "
              f"images from the grids LAMB {', '.join(map(str, LAMB_GRID))} and Adam "
              f"{', '.join(map(str, ADAM_GRID))}. Target: Adam at batch {SMALL}, lr 1e-3, constant. Test on 2,000 "
              f"images, {SEEDS} seeds paired. Pass: LAMB − Adam > 0 with 95 % confidence; the shortfall of LAMB "
              f"against the small batch is shown, not required to be 0. Scaled down: an MLP and 10,000 images "
              f"instead of BERT/ResNet-50, batch 2,048 instead of 32K; about 90 s.",
    runner="studio.core.checks.paper.you_lamb_large_batch:run",
    budget_s=150.0,
)


def run(progress: Any = None, seeds: int = SEEDS, first_seed: int = 0, epochs: int = EPOCHS,
        train_samples: int = 0, trust_ratio: bool = True) -> Reproduction:
    """The small-batch target, then each optimizer over its grid at the large batch; each picks its rate by the
    mean held-out accuracy over the seeds.

    ``trust_ratio=False`` breaks the set-up: LAMB without its trust ratio is Adam at LAMB's rates.
    """
    from studio.core.demos.training import load_data

    started = time.perf_counter()
    data = load_data("fashion_mnist_small", train_samples=train_samples, seed=0)
    train, val = _split(data.train)
    seed_list = seeds_of(first_seed, seeds)
    jobs = [("small", SMALL, 1e-3)] + [("adam", LARGE, lr) for lr in ADAM_GRID] + \
           [("lamb", LARGE, lr) for lr in LAMB_GRID]
    results: dict[tuple[str, float], list[tuple[float, float]]] = {}
    done, total = 0, len(jobs) * len(seed_list)
    for name, batch, lr in jobs:
        for seed in seed_list:
            if progress is not None:
                progress(done / total, f"{name} at batch {batch}, lr {lr:g}, seed {seed}")
            optimizer = "adam" if name == "lamb" and not trust_ratio else name
            results.setdefault((name, lr), []).append(
                _fit(data, train, val, seed, "adam" if optimizer == "small" else optimizer, batch, lr, epochs))
            done += 1
    small = [test for _, test in results[("small", 1e-3)]]
    best = {name: _best_rate(results, name, grid) for name, grid in (("adam", ADAM_GRID), ("lamb", LAMB_GRID))}
    adam = [test for _, test in results[("adam", best["adam"])]]
    lamb = [test for _, test in results[("lamb", best["lamb"])]]
    gain = paired(lamb, adam, over="seeds").scaled(100)
    short = paired(small, lamb, over="seeds").scaled(100)
    adam_short = 100 * (over_seeds(small).mean - over_seeds(adam).mean)
    measures = (
        above(f"test accuracy at batch {LARGE}, LAMB − Adam (points)", gain, 0.0,
              "LAMB keeps the baseline, Adam/AdamW fall short (§5)"),
    )
    # what LAMB leaves short of the small batch is said, not judged (at this scale it does not keep it): in the
    # details, not as a measure that could not fail
    details = {"shortfall_pt": {"lamb": short.mean, "adam": adam_short, "lamb_se": short.se},
               "best_lr": best, "small_acc": small, "adam_acc": adam, "lamb_acc": lamb,
               "grid": {f"{n}@{lr:g}": [v for v, _ in r] for (n, lr), r in results.items()},
               "seeds": list(seed_list), "trust_ratio": trust_ratio,
               "wall_s": round(time.perf_counter() - started, 2)}
    return Reproduction(measures, details)


def _best_rate(results: dict[tuple[str, float], list[tuple[float, float]]], name: str,
               grid: tuple[float, ...]) -> float:
    """The rate of ``grid`` whose runs of ``name`` have the best mean held-out accuracy."""
    return max(grid, key=lambda lr: over_seeds(held_out for held_out, _ in results[(name, lr)]).mean)


def _split(train: Split) -> tuple[Split, Split]:
    from studio.core.demos.training import Split

    n = len(train) - VALIDATION
    return Split(train.x[:n], train.y[:n]), Split(train.x[n:], train.y[n:])


def _fit(data: Data, train: Split, val: Split, seed: int, optimizer: str, batch: int, lr: float,
         epochs: int) -> tuple[float, float]:
    """(held-out accuracy, test accuracy) of the MLP trained ``epochs`` epochs; at the large batch the rate warms
    up over ``WARMUP`` of the steps, then decays by the catalog's poly schedule."""
    import torch
    from torch import nn

    from studio.core.demos.training import Batches, build_model, evaluate
    from studio.core.optim.custom import Lamb
    from studio.core.optim.schedules import poly

    model = build_model("mlp", data, seed, widths=[128, 128])
    opt = Lamb(model.parameters(), lr=lr) if optimizer == "lamb" else torch.optim.Adam(model.parameters(), lr=lr)
    batches = Batches(len(train), batch, seed + 1)
    total = epochs * batches.per_epoch
    factor = poly(total, batches.per_epoch, max(1, round(WARMUP * total))) if batch == LARGE else (lambda t: 1.0)
    model.train()
    for t in range(total):
        for group in opt.param_groups:
            group["lr"] = lr * factor(t)
        idx = batches.next()
        loss = nn.functional.cross_entropy(model(train.x[idx]), train.y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return evaluate(model, val)[1], evaluate(model, data.test)[1]
