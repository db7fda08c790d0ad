"""Derive the bundled Fashion-MNIST subset from Debian's dataset-fashion-mnist IDX files.

    apt-get install dataset-fashion-mnist
    python resources/scripts/make_fashion_mnist_subset.py

Writes resources/data/fashion_mnist_small.npz: a fixed, seeded, class-balanced subset of
10,000 train and 2,000 test images (uint8, 28×28) with their labels. Re-running gives the same file
contents (same seed, same source).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from studio.core.datasets.idx import read_idx

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def balanced_subset(labels: np.ndarray, per_class: int, rng: np.random.Generator) -> np.ndarray:
    picks = [rng.permutation(np.flatnonzero(labels == c))[:per_class] for c in range(10)]
    return rng.permutation(np.concatenate(picks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data" / "fashion_mnist_small.npz"))
    parser.add_argument("--seed", type=int, default=20171025)  # the Fashion-MNIST paper's arXiv date
    args = parser.parse_args()
    src = Path(args.source)
    rng = np.random.default_rng(args.seed)
    xtr, ytr = read_idx(src / "train-images-idx3-ubyte.gz"), read_idx(src / "train-labels-idx1-ubyte.gz")
    xte, yte = read_idx(src / "t10k-images-idx3-ubyte.gz"), read_idx(src / "t10k-labels-idx1-ubyte.gz")
    itr, ite = balanced_subset(ytr, 1000, rng), balanced_subset(yte, 200, rng)
    np.savez_compressed(
        args.out, x_train=xtr[itr], y_train=ytr[itr].astype(np.uint8),
        x_test=xte[ite], y_test=yte[ite].astype(np.uint8), classes=np.array(CLASSES),
    )
    print(f"wrote {args.out}: {len(itr)} train, {len(ite)} test, {Path(args.out).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
