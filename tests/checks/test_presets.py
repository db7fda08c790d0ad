"""Every check's "Show this set-up" preset is a valid set of parameters of each demo it belongs to."""

import pytest

from studio.core.checks.catalog import CHECKS
from studio.core.demos.catalog import DEMOS


@pytest.mark.parametrize("name", [n for n, c in CHECKS.items() if c.demos])
def test_preset_is_valid_for_its_demos(name: str) -> None:
    check = CHECKS[name]
    assert check.preset, f"{name} belongs to a demo but has no preset to show its set-up"
    for demo in check.demos:
        params = {p.name for p in DEMOS.get(demo).params}
        assert set(check.preset) <= params, f"{name}: {set(check.preset) - params} are not {demo} parameters"
        resolved = DEMOS.resolve(demo, dict(check.preset), "preset")
        assert all(resolved[k] == DEMOS.resolve(demo, {k: v}, "preset")[k] for k, v in check.preset.items())
