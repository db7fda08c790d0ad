"""The check catalog is read by the GUI at start-up and by `studio list checks`: finding every check imports no
torch (each check imports it when it runs)."""

import subprocess
import sys


def test_the_catalog_finds_every_check_without_importing_torch():
    code = ("import sys; from studio.core.checks.catalog import CHECKS; "
            "print(len(CHECKS), any(m == 'torch' or m.startswith('torch.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 13 and out[1] == "False"
