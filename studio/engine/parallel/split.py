"""Splitting a chain of layers into contiguous stages of about equal compute, and the pipeline bubble's theory.

The split and the theory are plain Python; :func:`chain_blocks` (is a module a chain of layers?) traces the
module with ``torch.fx`` and imports torch when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.core.errors import ConfigError


def bubble_theory(stages: int, microbatches: int) -> float:
    """The idle share of a fill-drain pipeline of ``stages`` equal stages and ``microbatches`` micro-batches:
    (p − 1) / (m + p − 1) (Huang et al. 2019; the same for 1F1B, Narayanan et al. 2021)."""
    if stages < 1 or microbatches < 1:
        raise ValueError("stages and micro-batches are at least 1")
    return (stages - 1) / (microbatches + stages - 1)


def balanced_split(costs: Sequence[float], parts: int) -> list[int]:
    """Contiguous groups of ``costs`` (one per layer, in order) into ``parts`` non-empty stages minimising the
    largest stage's cost (the pipeline's slowest stage sets its pace); returns the stage sizes (layers each).

    Exact, by dynamic programming over (layers, stages): ``O(n² p)``, nothing for a few dozen layers."""
    n = len(costs)
    if parts < 1:
        raise ConfigError(f"ranks must be at least 1 (not {parts})")
    if parts > n:
        raise ConfigError(f"{parts} ranks but the model has {n} layer{'s' if n != 1 else ''} to split: each rank "
                          f"needs at least one layer; use at most {n} ranks or more hidden layers (widths)")
    prefix = [0.0]
    for c in costs:
        prefix.append(prefix[-1] + float(c))
    inf = float("inf")
    # best[k][i]: the smallest largest-stage cost of the first i layers in k stages; cut[k][i]: where the last begins
    best = [[inf] * (n + 1) for _ in range(parts + 1)]
    cut = [[0] * (n + 1) for _ in range(parts + 1)]
    best[0][0] = 0.0
    for k in range(1, parts + 1):
        for i in range(k, n + 1):
            for j in range(k - 1, i):
                value = max(best[k - 1][j], prefix[i] - prefix[j])
                if value < best[k][i]:
                    best[k][i], cut[k][i] = value, j
    sizes, i = [], n
    for k in range(parts, 0, -1):
        j = cut[k][i]
        sizes.append(i - j)
        i = j
    return sizes[::-1]


def chain_blocks(module: Any, name: str) -> list[str]:
    """The names of ``module``'s top-level children if its forward is a chain (each child takes the previous
    child's output and nothing else, the input feeds the first, the last's output is the result); otherwise a
    ``ConfigError`` saying which layer breaks the chain (a skip connection, a branch, a function between layers).
    ``name`` is the model's name for the sentence."""
    import torch.fx

    try:
        graph = torch.fx.symbolic_trace(module).graph
    except Exception as err:  # noqa: BLE001 - data-dependent control flow cannot be traced: not a fixed chain
        raise ConfigError(f"model {name!r} cannot be split into stages: its forward is not a fixed chain of layers "
                          f"({type(err).__name__})") from None
    children = dict(module.named_children())
    order: list[str] = []
    previous: Any = None
    for node in graph.nodes:
        if node.op == "placeholder":
            if previous is not None:
                raise ConfigError(f"model {name!r} cannot be split into stages: it takes more than one input")
            previous = node
        elif node.op == "output":
            if node.args[0] is not previous:
                raise ConfigError(f"model {name!r} cannot be split into stages: its output is not its last layer's")
        elif node.op == "call_module" and str(node.target) in children:
            inputs = list(node.all_input_nodes)
            if inputs != [previous] or node.kwargs:
                raise ConfigError(f"model {name!r} cannot be split into stages: its layers are not a chain (layer "
                                  f"{node.target!r} takes {', '.join(map(str, inputs)) or 'no'} input, not only the "
                                  "previous layer's output: a skip connection or a branch)")
            if len(previous.users) > 1:
                raise ConfigError(f"model {name!r} cannot be split into stages: its layers are not a chain (the "
                                  f"output of {previous.name!r} is used {len(previous.users)} times: a skip "
                                  "connection or a branch)")
            order.append(str(node.target))
            previous = node
        else:
            raise ConfigError(f"model {name!r} cannot be split into stages: its layers are not a chain "
                              f"({node.op} {node.target!r} between layers, not inside one)")
    return order
