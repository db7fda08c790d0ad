"""The classification playground: a trained MLP's decision boundary on moons."""

import numpy as np


def test_decision_boundary_of_a_trained_mlp_classifies_held_out_moons():
    from studio.core.demos import playground

    result = playground.run(dataset="moons", noise=0.1, n_samples=400, steps=600, frame_every=100, resolution=80)
    frames = result["frames"]
    assert [f["step"] for f in frames] == [0, 100, 200, 300, 400, 500, 600]
    # the boundary grid (not the model) labels the test points
    labels = playground.classify_with_grid(result["xs"], result["ys"], frames[-1]["p"], result["x_test"])
    accuracy = float((labels == result["y_test"]).mean())
    assert accuracy > 0.95, accuracy
    assert frames[-1]["test_loss"] < frames[0]["test_loss"]


def test_grid_orientation_rows_are_y_columns_are_x():
    from studio.core.demos import playground

    xs, ys = np.linspace(0, 1, 5), np.linspace(10, 12, 3)
    p = np.zeros((3, 5))
    p[2, 0] = 1.0  # top-left: y = 12, x = 0
    labels = playground.classify_with_grid(xs, ys, p, np.array([[0.0, 12.0], [1.0, 10.0]]))
    assert labels.tolist() == [1, 0]


def test_train_ratio_splits_the_points():
    from studio.core.demos import playground

    xtr, ytr, xte, yte = playground.make_split("xor", 200, 0.1, 0.7, seed=1)
    assert len(xtr) == 140 and len(xte) == 60 and xtr.shape[1] == 2
