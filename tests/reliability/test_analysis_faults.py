"""Issue 20: `studio sharpness` / `studio landscape` with a read-only home — one line, exit 2, before any work."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import last_json, run_cli
from tests.reliability.mounts import made_read_only
from tests.reliability.test_export_faults import trained  # noqa: F401 - the shared fixture
from tests.reliability.test_store_faults import one_error


@pytest.mark.parametrize("command", [("sharpness",), ("landscape", "--kind", "1d")], ids=["sharpness", "landscape"])
def test_analysis_with_a_read_only_home(trained, tmp_path, command):  # noqa: F811
    home, run_id = trained
    copy = tmp_path / "ro" / "home"
    shutil.copytree(home, copy)
    env = {**os.environ, "STUDIO_HOME": str(copy)}
    with made_read_only(tmp_path / "ro"):
        by_dir = one_error(run_cli(*command, str(copy / "runs" / run_id), "--quiet", env=env))
        assert "read-only" in by_dir or "permission" in by_dir, by_dir
        assert "cannot save" in by_dir and "landscapes" in by_dir
        by_id = one_error(run_cli(*command, run_id, "--quiet", env=env))  # the store itself cannot be opened
        assert "runs.db" in by_id, by_id
    assert not (copy / "runs" / run_id / "landscapes").exists()


LM_RUN = ('[data]\nname = "fortunes"\nvocab_size = 100\nmax_len = 4\n[model]\nname = "lstm_lm"\nembedding = 8\n'
          'hidden = 8\n[train]\nepochs = 1\nbatch_size = 256\n[hardware]\nthreads = 1\n')


def test_generate_with_a_tiny_temperature_is_the_greedy_limit(tmp_path):
    """`studio generate --temperature 1e-300` (was: a traceback, "probability tensor contains either inf, nan"):
    computed safely, it is the T → 0 limit, the greedy words; a subnormal T too."""
    config = tmp_path / "lm.toml"
    config.write_text(LM_RUN)
    trained_lm = run_cli("train", "--config", str(config), "--json")
    assert trained_lm.returncode == 0, trained_lm.stderr
    run_id = last_json(trained_lm.stdout)["run_id"]
    words = {}
    for t in ("0", "1e-300", "5e-324"):
        proc = run_cli("generate", run_id, "--seed", "the", "--words", "6", "--temperature", t, "--sample-seed", "1",
                       "--json")
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        words[t] = last_json(proc.stdout)["words"]
    assert words["1e-300"] == words["5e-324"] == words["0"], words


def test_tempered_softmax_is_safe_for_every_positive_temperature():
    import torch

    from studio.engine.tasks.generate import tempered

    logits = torch.tensor([-torch.inf, -torch.inf, 1.0, 3.0, 3.0, -3e38, 2.999])
    for t in (5e-324, 1e-300, 1e-45, 1e-30):
        p = tempered(logits, t)
        assert torch.isfinite(p).all() and p.tolist() == [0, 0, 0, 0.5, 0.5, 0, 0], (t, p)  # ties share the max
    for t in (0.01, 0.5, 1.0, 7.0, 100.0):  # the ordinary softmax(logits / T), to float32 precision
        expected = torch.softmax(logits.double() / t, 0).float()
        assert torch.allclose(tempered(logits, t), expected, atol=1e-6), t
