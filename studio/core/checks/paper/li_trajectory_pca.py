"""PCA of an optimiser's trajectory puts most of its variance in two directions (Li et al. 2018, §7)."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

LOW, HIGH = 0.40, 0.90

CHECK = PaperCheck(
    name="li_trajectory_pca",
    claim="The optimiser's path lies close to a plane: PCA of the weights at each epoch minus the final weights "
          "puts 40–90 % of the variance in its first two components.",
    paper="Li, Xu, Taylor, Studer & Goldstein, Visualizing the Loss Landscape of Neural Nets (NeurIPS 2018), §7",
    paper_setup="VGG-9 and ResNets on CIFAR-10, SGD with momentum, 300 epochs, one snapshot per epoch: the first "
                "two PCA directions explain roughly 40–90 % of the variation (Fig. 9/10 axis labels).",
    our_setup="An MLP 784-128-10 on 5,000 images of the bundled Fashion-MNIST subset, SGD (η 0.05, momentum 0.9, "
              "weight decay 5e-4, batch 64), 20 epochs, one snapshot per epoch plus the initial weights; PCA by "
              "Studio's Landscape-tab code (core/landscape/trajectory.pca_plane). Scaled down: an MLP for VGG, "
              "20 epochs for 300, Fashion-MNIST for CIFAR-10.",
    runner="studio.core.checks.paper.li_trajectory_pca:run",
    budget_s=30.0,
)


def run(progress: Any = None, epochs: int = 20, train_samples: int = 5000, width: int = 128, lr: float = 0.05,
              momentum: float = 0.9, weight_decay: float = 5e-4, batch_size: int = 64, seed: int = 0) -> Reproduction:
    import torch

    from studio.core.demos.common import report
    from studio.core.demos.training import Batches, build_model, evaluate, load_data, train_epoch
    from studio.core.landscape.directions import parameters_of
    from studio.core.landscape.trajectory import pca_plane

    report(progress, 0.0, "loading fashion_mnist_small")
    data = load_data("fashion_mnist_small", train_samples, 1000, seed)
    model = build_model("mlp", data, seed, widths=[width])
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    batches = Batches(len(data.train), batch_size, seed + 1)
    snapshots = [parameters_of(model)]
    for epoch in range(epochs):
        train_epoch(model, opt, data.train, batches)
        snapshots.append(parameters_of(model))
        report(progress, 0.9 * (epoch + 1) / epochs, f"epoch {epoch + 1}/{epochs}")
    plane = pca_plane(snapshots, snapshots[-1])
    ratios = [float(v) for v in plane.explained_variance]
    two = sum(ratios)
    _, test_acc = evaluate(model, data.test)
    measures = (
        Measure.within("variance explained by the first two PCA directions", two, LOW, HIGH,
                       "≈ 40–90 % (Fig. 9/10)"),
    )
    details = {"explained_variance": ratios, "snapshots": len(snapshots), "centered": plane.centered,
               "path": plane.path.tolist(), "test_acc": test_acc}
    return Reproduction(measures, details)
