"""Dosovitskiy et al. 2021's check: the CNN leads the ViT at 500 training images and its lead shrinks at 10,000;
with no data-size difference it fails; held-out seeds pass.

Recorded (2-core CPU, shared, one torch thread, 4 seeds, 300 steps each): CNN − ViT 11.1 ± 1.1 points at 500
images, 7.2 ± 0.2 at 10,000; the fall 3.9 ± 0.9 points; 172 s wall (71 s CPU) on a loaded machine. The ViT does
not overtake the CNN at this scale (the paper needs ~10⁸ images): stated, not tested.
"""

import pytest

from studio.core.checks.catalog import run_check


def test_equal_data_sizes_show_no_trend_and_fail():
    outcome = run_check("dosovitskiy_vit_data", seeds=2, sizes=(500, 500), steps=40)
    assert not outcome.error and not outcome.passed
    _, closing, _ = outcome.measures
    assert closing.ours == 0 and not closing.passed  # the same runs at both "sizes"


@pytest.mark.slow
@pytest.mark.pooled_check("dosovitskiy_vit_data", first_seed=100)
def test_held_out_seeds_pass(pooled_check):
    outcome = pooled_check("dosovitskiy_vit_data", first_seed=100)
    assert outcome.passed, (outcome.error, [m.to_dict() for m in outcome.measures])
    assert outcome.details["seeds"] == [100, 101, 102, 103]
