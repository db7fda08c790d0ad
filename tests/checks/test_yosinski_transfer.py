"""Yosinski et al. 2014 through Studio's init_from path: features of six Fashion-MNIST classes, fine-tuned on two
labelled images of each of four others, beat scratch; an untrained source (its weights only another random start)
does not, and FAILs."""

import pytest

from studio.core.checks.catalog import run_check


def test_an_untrained_source_gives_no_gain_and_fails():
    outcome = run_check("yosinski_transfer", source_epochs=0, seeds=20)
    assert not outcome.error and not outcome.passed, outcome.to_dict()
    assert outcome.details["source_test_acc"] < 0.4  # six classes at about chance: nothing learned to transfer
    assert outcome.measures[0].ours < 2.0


@pytest.mark.slow
@pytest.mark.pooled_check("yosinski_transfer", seed=100, source_seed=7)
def test_another_source_and_held_out_draws_pass_too(pooled_check):
    outcome = pooled_check("yosinski_transfer", seed=100, source_seed=7)
    assert outcome.passed, outcome.to_dict()
    assert outcome.details["source_test_acc"] > 0.9 and len(outcome.details["per_draw"]) == 60
