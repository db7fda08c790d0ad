"""The math of the teaching demos (no Qt): each demo computes arrays the GUI animates and key numbers
the CLI prints.

- ``catalog``: the DEMOS registry (torch-free): parameters and the explanation panel's text.
- ``functions``: 2-D test functions (quadratic bowl, Rosenbrock, Beale, Himmelblau, saddle, Rastrigin).
- ``race``: catalog optimizers racing on a 2-D function.
- ``linear_neuron``: full-batch GD vs mini-batch SGD on the noisy line, the (w, b) loss contour.
- ``playground``: an MLP on 2-D points with its decision boundary while it trains.
- ``large_batch``: a batch-size sweep trained to convergence: steps to target, sharpness, gap, interpolation.
- ``noise_scale``: the gradient noise scale B_simple = tr(Σ)/|G|² (McCandlish et al. 2018).
- ``regularisation``: the same model with and without dropout, weight decay, augmentation.
- ``edge_of_stability``: full-batch GD raises the top Hessian eigenvalue to 2/η and holds it there (Cohen et al. 2021).

Every demo's builder is ``run(progress=None, emit=None, **params) -> dict`` with a ``"summary"`` of
JSON-able key numbers; ``progress(fraction, text)`` reports (and may raise to cancel), ``emit(frame)``
hands live snapshots to a viewer.
"""

from studio.core.demos.catalog import DEMOS, EXPLANATIONS

__all__ = ["DEMOS", "EXPLANATIONS"]
