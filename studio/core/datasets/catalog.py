"""The dataset registry: what a person can train on. Loaders are imported lazily."""

from __future__ import annotations

from studio.core.registry import Entry, Param, Registry

DATASETS = Registry("dataset")

DATASETS.add(Entry(
    "fashion_mnist_small",
    "Fashion-MNIST subset bundled with Studio: 10,000 train + 2,000 test grey 28×28 images of clothes, 10 classes",
    builder="studio.core.datasets.bundled:load_fashion_mnist_small",
    info="Xiao, Rasul & Vollgraf 2017, 'Fashion-MNIST'. MIT licence. A fixed, seeded subset; see resources/README.md.",
    tags=("image", "bundled"),
))

_POINTS = (
    Param("n_samples", "int", 1000, "how many training points", 50, 100_000),
    Param("noise", "float", 0.1, "how much the classes blur into each other", 0.0, 2.0),
)
for _name, _desc in (
    ("spiral", "Two interleaved spirals in the plane: needs a curved decision boundary"),
    ("moons", "Two interleaving half circles (scikit-learn's make_moons)"),
    ("circles", "A small circle inside a large one: not linearly separable"),
    ("xor", "Four quadrants labelled like XOR: the classic problem a single neuron cannot solve"),
    ("gaussian", "Two Gaussian blobs: linearly separable when the noise is low"),
):
    DATASETS.add(Entry(_name, _desc, _POINTS, builder="studio.core.datasets.synthetic:load_points",
                       tags=("points", "synthetic")))

DATASETS.add(Entry(
    "noisy_line",
    "A noisy straight line for regression: points (x, y) with y = w_gen·(x + noise) + b_gen",
    (
        Param("n_samples", "int", 200, "how many training points", 10, 1_000_000),
        Param("w_gen", "float", 2.0, "slope of the line that generates the data", -100.0, 100.0),
        Param("b_gen", "float", -1.0, "offset of the line that generates the data", -100.0, 100.0),
        Param("noise", "float", 0.3, "standard deviation of the noise added to x", 0.0, 10.0),
    ),
    builder="studio.core.datasets.noisy_line:load_noisy_line",
    info="x ~ U(−1, 1), ε ~ N(0, noise²), y = w_gen·(x + ε) + b_gen. Fit the linear neuron with mean squared "
         "error and compare the learned w, b with w_gen, b_gen. Inputs are not normalised; 10 % held out for "
         "validation.",
    tags=("regression", "synthetic"),
))
