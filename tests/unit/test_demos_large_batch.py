"""The large-batch lab on the bundled Fashion-MNIST subset: the largest batch ends sharper (Keskar et al. 2017).

Recorded (CPU, seed 0, this configuration): top Hessian eigenvalue ≈ 13.1 for batch 16 and ≈ 74.8 for
batch 1000 (see the closing note of issue 6 for the full default sweep).
"""

import numpy as np


def test_largest_batch_has_a_larger_top_eigenvalue_than_the_smallest():
    from studio.core.demos import large_batch

    runs, frames = [], []
    result = large_batch.run(dataset="fashion_mnist_small", batch_sizes="16,1000", epochs=20, train_samples=2000,
                             test_samples=500, hessian_samples=500, widths="128", optimizer="adam", lr=1e-3,
                             interpolation=True, threads=1, until_train_acc=0.0, emit=frames.append)
    small, large = result["summary"]["runs"]["16"], result["summary"]["runs"]["1000"]
    print(f"top eigenvalue: batch 16 → {small['top_eigenvalue']:.2f}, batch 1000 → {large['top_eigenvalue']:.2f}")
    assert large["top_eigenvalue"] > small["top_eigenvalue"]
    assert small["steps"] == 20 * (2000 // 16) and large["steps"] == 20 * (2000 // 1000)
    runs = [f["run"]["batch_size"] for f in frames if "run" in f]  # fixed epochs (until_train_acc=0): as before
    assert runs == [16, 1000] and "interpolation" in frames[-1]
    interp = result["interpolation"]
    ends = np.searchsorted(interp["alpha"], [0.0, 1.0])
    # α = 0 and α = 1 are the two solutions: their training loss is the runs' own (on the Hessian subset)
    assert interp["train_loss"][ends].max() < interp["train_loss"].max()


def test_linear_scaling_and_warmup():
    from studio.core.demos import large_batch

    assert large_batch.lr_for(256, 0.1, True, 64) == 0.4
    assert large_batch.lr_for(256, 0.1, False, 64) == 0.1
    common = dict(dataset="moons", batch_sizes="8,64", epochs=1, train_samples=256, test_samples=64,
                  hessian_samples=64, widths="8", optimizer="sgd", lr=0.05, base_batch=8, interpolation=False,
                  evals=2, threads=1)
    scaled = large_batch.run(linear_scaling=True, **common)["summary"]["runs"]
    assert scaled["8"]["lr"] == 0.05 and scaled["64"]["lr"] == 0.4
    data = large_batch.load_data("moons", 200, 100, 0)
    args = (data, 20, "mlp", {"widths": [8]}, "sgd", 0.1, 2)
    tail = (0.99, 5, 0, "cpu", data.train.x, data.train.y)
    cold, _ = large_batch.train_one(*args, 0.0, *tail)
    warm, _ = large_batch.train_one(*args, 1.0, *tail)  # one epoch of warm-up: 10 smaller first steps
    assert cold["steps"] == warm["steps"] == 20 and len(cold["curve"]["step"]) == 6
    assert warm["curve"]["train_loss"][1] != cold["curve"]["train_loss"][1]  # same start, different steps


def test_each_batch_size_trains_until_it_fits_and_its_curve_arrives_while_it_trains():
    """``until_train_acc``: a run stops at the first evaluation with that training accuracy (the epochs are the
    cap); every evaluation sends the curve so far, before the run's own frame; Keskar's ε-sharpness is measured."""
    from studio.core.demos import large_batch

    frames = []
    result = large_batch.run(dataset="moons", batch_sizes="8,64", epochs=40, until_train_acc=0.9, train_samples=256,
                             test_samples=128, hessian_samples=64, widths="16", lr=0.01, evals=40,
                             interpolation=False, threads=1, emit=frames.append)
    for run in result["runs"]:
        per_epoch = 256 // run["batch_size"]
        assert run["converged"] and run["train_acc"] >= 0.9 and run["steps"] < 40 * per_epoch
        assert run["curve"]["train_acc"][-1] >= 0.9 > run["curve"]["train_acc"][-2]  # stopped at the first
        assert run["eps_sharpness"] > 0 and run["epochs"] == run["steps"] / per_epoch
    kinds = [("partial", f["partial"]["batch_size"]) if "partial" in f else ("run", f["run"]["batch_size"])
             for f in frames]
    first_run = kinds.index(("run", 8))
    partials = [f["partial"] for f in frames[:first_run]]
    assert partials and all(p["batch_size"] == 8 for p in partials) and kinds[first_run + 1] == ("partial", 64)
    assert [len(p["curve"]["step"]) for p in partials] == list(range(1, len(partials) + 1))  # from step 0, +1 each
    assert result["summary"]["runs"]["8"]["converged"] is True
