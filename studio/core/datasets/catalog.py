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
