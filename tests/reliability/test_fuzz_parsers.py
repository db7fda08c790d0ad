"""Issue 39: a fuzz test (Hypothesis) of every parser that reads a user's file or string (tests/reliability/
fuzz_targets.py ``PARSERS``: config TOML and files, ``--set``, the run filter, the run store's own records, the text,
labelled-CSV, image-CSV, NPZ and IDX importers, TensorBoard logs). Each input either parses, or is refused with a
StudioError of one line; no other exception, at most ``SECONDS`` and ``PEAK_MB`` of memory per input (inputs are a
few hundred bytes: a parser that allocates more believed a size the input declared).

The default run is short and derandomized (the same inputs every time: a CI failure reproduces); ``-m slow`` runs
ten times the examples with fresh randomness.
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from studio.core.errors import StudioError
from tests.reliability.fuzz_targets import PARSERS, Target, one_line

SECONDS = 10.0  # per input, on a busy 2-core machine
PEAK_MB = 64


def fuzz(target: Target, examples: int, derandomize: bool, root: Path) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=derandomize, print_blob=True,
              suppress_health_check=list(HealthCheck))
    @given(target.inputs)
    def check(data: object) -> None:
        folder = Path(tempfile.mkdtemp(dir=root))
        tracemalloc.start()
        started = time.perf_counter()
        try:
            target.call(data, folder)
        except StudioError as err:
            assert not target.never_raises, f"{target.name} must skip damage, not fail: {err}"
            one_line(err)
        finally:
            took = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert took < SECONDS, f"{target.name} took {took:.1f} s on one input"
        assert peak < PEAK_MB << 20, f"{target.name} held {peak / 2**20:.0f} MB for one input"

    if target.warmup is not None:  # the first parse imports its libraries: that is no input's cost
        target.call(target.warmup(), Path(tempfile.mkdtemp(dir=root)))
    check()


@pytest.mark.parametrize("target", PARSERS, ids=[t.name for t in PARSERS])
def test_every_parser_refuses_bad_input_in_one_line(target, tmp_path):
    fuzz(target, target.examples, derandomize=True, root=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("target", PARSERS, ids=[t.name for t in PARSERS])
def test_every_parser_refuses_bad_input_in_one_line_long(target, tmp_path):
    fuzz(target, target.examples * 10, derandomize=False, root=tmp_path)
