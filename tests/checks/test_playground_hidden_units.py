"""The playground's paper check: a straight-line boundary fails XOR and circles, hidden layers solve them — and
a 'deep' network of one unit fails it."""

from studio.core.checks.catalog import run_check


def test_passes_on_the_playground_defaults_and_on_a_held_out_seed():
    outcome = run_check("playground_hidden_units")
    assert outcome.passed, outcome.to_dict()
    assert set(outcome.details) == {"xor", "circles"}
    held_out = run_check("playground_hidden_units", seed=1)  # other points and initial weights
    assert held_out.passed, held_out.to_dict()


def test_fails_when_the_hidden_layers_are_one_unit_too():
    outcome = run_check("playground_hidden_units", hidden="1")
    assert not outcome.passed
    assert [m.passed for m in outcome.measures] == [True, False, True, False]
