"""``studio data import``: the JSON report, and bad input as exit 2 with one line on stderr."""

from __future__ import annotations

import json
import zipfile

import pytest

from studio import cli
from tests.conftest import run_cli
from tests.unit import import_fixtures as fx

REPORT_KEYS = {"name", "num_samples", "num_classes", "classes", "shape", "splits", "skipped", "skipped_examples"}


def test_import_json_report(tmp_path, capsys):
    root = fx.image_folder(tmp_path / "pets", per_class=10)
    fx.corrupt_files(root / "emu")
    assert cli.main(["data", "import", str(root), "--name", "my_pets", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    report = json.loads(out[-1])
    assert REPORT_KEYS <= set(report)
    assert report["name"] == "my_pets" and report["num_samples"] == 30 and report["shape"] == [3, 20, 24]
    assert report["splits"] == {"train": 21, "val": 6, "test": 3}
    assert report["skipped"] == 2 and len(report["skipped_examples"]) == 2
    assert cli.main(["data", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [d["name"] for d in listing["datasets"]] == ["my_pets"]


def _empty(p):
    (p / "empty").mkdir()
    return p / "empty"


def _ragged_csv(p):
    (p / "x.csv").write_text("label,a,b\n1,2,3\n1,2\n")
    return p / "x.csv"


@pytest.mark.parametrize("make, message", [
    (_empty, "is empty"),
    (lambda p: p / "missing", "does not exist"),
    (_ragged_csv, "row 3 has 2 values but the table has 3 columns (ragged rows)"),
])
def test_bad_input_exit_2_one_line(tmp_path, capsys, make, message):
    path = make(tmp_path)
    assert cli.main(["data", "import", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studio: error:") and message in lines[0]


def test_traversal_zip_in_a_real_process_has_no_traceback(tmp_path):
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as zf:
        zf.writestr("../../evil.png", b"x")
    result = run_cli("data", "import", str(tmp_path / "evil.zip"), "--json", timeout=120)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "refuses" in result.stderr
    assert not (tmp_path.parent / "evil.png").exists()
