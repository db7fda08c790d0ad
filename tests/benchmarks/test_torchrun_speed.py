"""The same run three ways, side by side: Studio's own launcher (`studio train`, 2 processes), torchrun with one
node × 2 processes, and two torchrun agents as two nodes × 1 process on this machine (c10d on 127.0.0.1). Wall
time from the command to the finished run (start-up included), and the training time the run records."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studio.core.runs.store import RunStore
from tests.integration.test_torchrun import free_port, torchrun

pytestmark = pytest.mark.benchmark

SETS = ("--set", "train.epochs=2", "--set", "hardware.threads=1")


def timed(start) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    home = start()
    wall = time.perf_counter() - t0
    (run,) = RunStore(home).list()
    assert run.status == "finished" and run.summary["world_size"] == 2
    return wall, run.summary["seconds"], run.summary["test_acc"]


def test_two_nodes_on_one_machine_beside_studio(tmp_path):
    config = tmp_path / "run.toml"
    config.write_text("[train]\nepochs = 2\n[hardware]\nthreads = 1\n")  # the default run (Fashion-MNIST subset, MLP)
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(Path(__file__).resolve().parents[2]))

    def studio() -> Path:
        home = tmp_path / "studio"
        subprocess.run([sys.executable, "-m", "studio", "train", "--config", str(config), "--set",
                        "hardware.processes=2", "--quiet"], env=dict(env, STUDIO_HOME=str(home)), check=True)
        return home

    def one_node() -> Path:
        home = tmp_path / "one-node"
        proc = torchrun(config, home, port=free_port(), rdzv_id="bench1")
        assert proc.wait(600) == 0
        return home

    def two_nodes() -> Path:
        home, port = tmp_path / "two-nodes", free_port()
        agents = [torchrun(config, home, nnodes=2, node_rank=r, nproc=1, port=port, rdzv_id="bench2") for r in (0, 1)]
        assert [a.wait(600) for a in agents] == [0, 0]
        return home

    rows = [(name, *timed(fn)) for name, fn in (("studio train, 2 processes", studio),
                                                 ("torchrun 1 node × 2", one_node),
                                                 ("torchrun 2 nodes × 1 (one machine)", two_nodes))]
    base = rows[0][1]
    print()
    for name, wall, train, acc in rows:
        print(f"{name:<36} wall {wall:6.1f} s (×{wall / base:.2f})   training {train:6.1f} s   test acc {acc:.4f}")
