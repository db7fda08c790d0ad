"""engine/jobs/exit.exit_without_finalising: the exit code and output of an entry point survive leaving by
``os._exit`` (no interpreter finalisation: atexit handlers do not run)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = {
    "done": ("print('result', flush=False)", 0, "result", ""),
    "exit 2": ("import sys; print('studio: error: bad', file=sys.stderr); sys.exit(2)", 2, "", "studio: error: bad"),
    "exit with words": ("import sys; sys.exit('no good')", 1, "", "no good"),
    "an exception": ("raise ValueError('boom')", 1, "", "ValueError: boom"),
}


@pytest.mark.parametrize("case", CASES)
def test_exit_code_and_output_survive(case):
    body, code, out, err = CASES[case]
    script = (f"import atexit\nfrom studio.engine.jobs.exit import exit_without_finalising\n"
              f"atexit.register(print, 'finalised')\ndef entry():\n    {body}\nexit_without_finalising(entry)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == code and out in done.stdout and err in done.stderr, (done.stdout, done.stderr)
    assert "finalised" not in done.stdout  # no interpreter finalisation
