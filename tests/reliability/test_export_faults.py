"""Issue 20, export faults: a read-only folder, a full disk, a target that is a FIFO or a device — one line,
exit 2, no traceback, no temporary file left, the node untouched."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio import cli
from tests.conftest import TINY_CONFIG, run_cli
from tests.reliability.conftest import error_lines
from tests.reliability.mounts import made_read_only, tmpfs
from tests.reliability.test_store_faults import one_error


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(home, run id) of one tiny finished run."""
    home = tmp_path_factory.mktemp("export_home")
    config = home / "tiny.toml"
    config.write_text(TINY_CONFIG)
    proc = run_cli("train", "--config", str(config), "--json", env={**os.environ, "STUDIO_HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    return home, next((home / "runs").iterdir()).name


def in_process(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    ro = tmp_path / "ro"
    ro.mkdir()
    with made_read_only(ro):
        yield ro


@pytest.mark.parametrize("target", ["--csv out.csv", "--model model", "--tensorboard tb", "--png curves.png"])
def test_export_into_a_read_only_folder(trained, read_only, target):
    home, run_id = trained
    flag, name = target.split()
    line = one_error(run_cli("export", run_id, flag, str(read_only / name),
                             env={**os.environ, "STUDIO_HOME": str(home)}))
    assert str(read_only / name) in line and "read-only" in line or "permission" in line, line
    assert os.listdir(read_only) == []


@pytest.mark.parametrize("flag", ["--csv", "--model", "--png"])
def test_export_onto_a_fifo_or_a_device_is_refused(trained, tmp_path, capsys, monkeypatch, flag):
    home, run_id = trained
    monkeypatch.setenv("STUDIO_HOME", str(home))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, err = in_process(capsys, "export", run_id, flag, str(fifo))
    assert code == 2 and len(error_lines(err)) == 1 and "named pipe" in err, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    code, err = in_process(capsys, "export", run_id, flag, os.devnull)
    assert code == 2 and "is a device" in err, err
    assert stat.S_ISCHR(os.lstat(os.devnull).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


@pytest.mark.parametrize("checked", [True, False], ids=["space-checked", "write-fails"])
def test_model_export_on_a_full_disk(trained, tmp_path, checked):
    """A 1 MB tmpfs, nearly full: refused from the free space before writing; and (the free-space check
    disabled, as on a file system that misreports it) the write's ENOSPC is one line, no temp file left,
    the previous export kept — never torch's C++ abort (exit 134) and a ``model.part.pt``."""
    home, run_id = trained
    disk = tmp_path / "disk"
    prefix = tmpfs(disk, "1m")
    patch = "" if checked else "import studio.core.host.outfiles as o; o.check_space = lambda *a: None\n"
    script = (f"open('{disk}/model.pt', 'wb').write(b'previous')\n"
              f"fill = open('{disk}/filler', 'wb', buffering=0)\n"
              "try:\n    while True: fill.write(b'x' * 4096)\nexcept OSError: pass\n"
              f"{patch}import sys\nfrom studio import cli\n"
              f"code = cli.main(['export', '{run_id}', '--model', '{disk}/model.pt', '--format', 'torchscript'])\n"
              f"import os; print(sorted(os.listdir('{disk}')), open('{disk}/model.pt', 'rb').read())\n"
              "sys.exit(code)\n")
    result = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "STUDIO_HOME": str(home)})
    line = one_error(result)
    assert "model.pt" in line and ("MB free" if checked else "disk is full") in line, line
    assert result.stdout.strip() == "['filler', 'model.pt'] b'previous'"
