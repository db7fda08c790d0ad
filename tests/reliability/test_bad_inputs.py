"""Faults 7, 8, 10: checkpoint files that are not checkpoints, config values that are not numbers (or
ask for more than the machine has), run ids under fast creation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TINY_CONFIG, run_cli
from tests.reliability.conftest import error_lines


def one_error(result: subprocess.CompletedProcess, code: int = 2) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "weights_only=False" not in result.stderr, result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    return lines[0]


class Payload:
    """Unpickling this would run a shell command that leaves a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A finished tiny run (its own store) whose checkpoints the tests below replace."""
    home = tmp_path_factory.mktemp("bad_ckpt_home")
    env = {**os.environ, "STUDIO_HOME": str(home)}
    config = home / "tiny.toml"
    config.write_text(TINY_CONFIG)
    done = run_cli("train", "--config", str(config), "--json", "--quiet", env=env)
    assert done.returncode == 0, done.stderr
    return env, json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("kind", [pytest.param("random", marks=pytest.mark.slow), "code",
                                  pytest.param("truncated", marks=pytest.mark.slow)])
def test_bad_checkpoint_is_named_never_executed(stopped_run, tmp_path, kind):
    env, result = stopped_run
    folder = Path(result["run_dir"]) / "checkpoints"
    marker = tmp_path / "executed"
    newest = sorted(folder.glob("step_*.pt"))[-1]
    bad = folder / "step_9999999.pt"
    if kind == "random":
        bad.write_bytes(os.urandom(4096))
    elif kind == "code":
        import torch

        torch.save({"model": {}, "evil": Payload(marker)}, bad)
    else:
        bad.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    try:
        resumed = run_cli("train", "--resume", result["run_id"], "--set", "train.epochs=4", "--json", env=env)
        line = one_error(resumed, code=2)
        assert str(bad) in line and "not a Studio checkpoint" in line
        assert json.loads(resumed.stdout.splitlines()[-1])["error"] in line
        assert not marker.exists(), "loading a checkpoint ran code from it"
        from studio.core.runs.store import RunStore

        kept = RunStore(env["STUDIO_HOME"]).get(result["run_id"])
        assert kept.status == "finished" and kept.run_config.train.epochs == 2  # a failed resume changes nothing
        from studio.core.errors import DataError
        from studio.engine.loop.checkpoints import load_checkpoint  # the same in-process (studio eval, landscapes)

        with pytest.raises(DataError, match="not a Studio checkpoint"):
            load_checkpoint(bad)
        assert not marker.exists()
    finally:
        bad.unlink()


BAD_SETTINGS = [
    ("optimizer.lr=nan", "finite"), ("train.grad_clip=nan", "finite"), ("train.label_smoothing=nan", "finite"),
    ("data.aug_rotation=nan", "finite"), ("optimizer.lr=inf", "finite"), ("hardware.threads=-1", "threads"),
    ("hardware.processes=1000", "processes"), ("hardware.device=cuda", "cuda"),
]


@pytest.mark.parametrize(("setting", "word"), BAD_SETTINGS)
def test_bad_values_exit_2_before_any_run(home, setting, word):
    result = run_cli("train", "--set", setting, "--json")
    line = one_error(result)
    assert word in line, line
    assert not (home / "runs").exists() or not any((home / "runs").iterdir()), "a run was created"


def test_binary_config_file(home, tmp_path):
    binary = tmp_path / "model.bin"
    binary.write_bytes(bytes(range(256)) * 16)
    line = one_error(run_cli("train", "--config", str(binary)))
    assert "model.bin" in line and "binary" in line


def test_run_ids_never_collide(home):
    """Two processes creating runs as fast as they can get distinct ids and folders (was: FileExistsError
    after ~1,900 runs in 16 s); and a forced collision is retried."""
    script = ("from studio.core.config import RunConfig\nfrom studio.core.runs.store import RunStore\n"
              "s = RunStore(); c = RunConfig()\n"
              "print(' '.join(s.create_run(c).id for _ in range(300)))\n")
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    ids = [i for p in procs for i in p.communicate(timeout=120)[0].split()]
    assert all(p.returncode == 0 for p in procs)
    assert len(ids) == 600 and len(set(ids)) == 600
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    taken = ids[0]
    fresh = iter([taken, taken, "20261123-000000-00000001"])
    store.new_run_id = lambda: next(fresh)  # the first two tries collide
    assert store.create_run(RunConfig()).id == "20261123-000000-00000001"
