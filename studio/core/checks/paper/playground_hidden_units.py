"""The playground: a straight-line boundary cannot separate XOR or circles; a few hidden layers can."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, PaperCheck, Reproduction

CHECK = PaperCheck(
    name="playground_hidden_units",
    claim="A classifier whose boundary is a straight line cannot separate XOR or concentric circles; a network "
          "with hidden layers bends its boundary around them.",
    paper="Minsky & Papert 1969, 'Perceptrons' (no single-layer perceptron computes XOR); Rumelhart, Hinton & "
          "Williams 1986, 'Learning representations by back-propagating errors' (hidden units learn XOR)",
    paper_setup="XOR's four points: a straight line gets at most 3 of 4 right (75 %); a network with a hidden "
                "layer trained by back-propagation gets all 4.",
    our_setup="The classification playground at its defaults (Adam, lr 0.03, batch 16, 1,500 steps, tanh, 400 "
              "points with noise 0.1, half for testing) on the xor and circles point sets: widths 1 (one hidden "
              "unit: the boundary is a level set of one linear function, a straight line) against widths 16,16. "
              "The test accuracy of each.",
    runner="studio.core.checks.paper.playground_hidden_units:run",
    demos=("playground",),
    budget_s=20.0,
    preset={"dataset": "xor", "widths": "16,16"},
)


def run(progress: Any = None, hidden: str = "16,16", line: str = "1", steps: int = 1500, seed: int = 0) -> Reproduction:
    """``hidden``: the network that should bend its boundary (``"1"`` makes it a straight line too: a FAIL)."""
    from studio.core.demos.playground import run as playground

    limits = {"xor": ("≤ 75 % (a line gets 3 of XOR's 4 points)", "100 % (XOR learnt)"),
              "circles": ("no line separates a ring from its centre", "a closed boundary around the centre")}
    measures: list[Measure] = []
    details: dict[str, Any] = {}
    for i, dataset in enumerate(("xor", "circles")):
        if progress is not None:
            progress(i / 2, dataset)
        straight = playground(dataset=dataset, widths=line, steps=steps, frame_every=steps, seed=seed)["summary"]
        bent = playground(dataset=dataset, widths=hidden, steps=steps, frame_every=steps, seed=seed)["summary"]
        details[dataset] = {"straight_line": straight["test_acc"], "hidden_layers": bent["test_acc"]}
        measures.append(Measure.at_most(f"{dataset}: test accuracy of a straight-line boundary (widths {line})",
                                        straight["test_acc"], 0.75, limits[dataset][0]))
        measures.append(Measure.at_least(f"{dataset}: test accuracy with hidden layers (widths {hidden})",
                                         bent["test_acc"], 0.9, limits[dataset][1]))
    return Reproduction(tuple(measures), details)
