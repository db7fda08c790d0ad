"""Studio's analyses on a model trained elsewhere: ``run.save_model`` (and ``studio attach``) register weights,
code and data; the landscape, sharpness, evaluation and the gradient noise scale then run on it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import studio.track
from studio.core.contracts import layout
from studio.core.runs.store import RunStore
from tests.conftest import last_json, run_cli


def _blobs(n: int = 256) -> tuple:
    import torch

    gen = torch.Generator().manual_seed(0)
    y = torch.randint(0, 3, (n,), generator=gen)
    x = torch.randn(n, 4, generator=gen) * 0.7 + torch.nn.functional.one_hot(y, 4).float() * 2
    return x, y


def _train_and_save(steps: int = 60) -> studio.track.Run:
    import torch

    from tests.track.tiny_net import TinyNet

    torch.manual_seed(0)
    model = TinyNet(hidden=16)
    x, y = _blobs()
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    run = studio.track.init("elsewhere", config={"lr": 0.2})
    for step in range(steps):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run.log({"train/loss": loss}, step=step)
        if step in (0, steps // 2):
            run.save_model(model, (x, y), step=step, init={"hidden": 16})
    run.save_model(model, (x, y), step=steps, init={"hidden": 16})
    run.finish()
    return run


def test_save_model_writes_code_weights_and_data(studio_home: Path) -> None:
    run = _train_and_save()
    assert layout.attached_code_path(run.dir).read_text().count("class TinyNet") == 1
    meta = json.loads(layout.attached_model_path(run.dir).read_text())
    assert meta["class"] == "TinyNet" and meta["init"] == {"hidden": 16} and meta["task"] == "classification"
    assert [r.step for r in layout.list_checkpoints(run.dir)] == [0, 30, 60]
    assert layout.final_path(run.dir).is_file()


def test_landscape_sharpness_evaluation_and_noise_scale_run_on_it(studio_home: Path) -> None:
    from studio.core.contracts.noise_scale import NoiseScaleRequest, critical_batch_line
    from studio.engine.replay import RunData
    from studio.engine.tasks import landscape, noise_scale
    from studio.engine.tasks.evaluation import evaluate_run

    run = _train_and_save()
    data = RunData(run.dir, "cpu")
    assert data.classification and data.num_classes == 3 and data.input_shape == (4,)
    one_d, _ = landscape.compute_landscape(run.dir, kind="1d", resolution=9, samples=128, device="cpu", save=False)
    losses = [float(v) for v in one_d.loss]
    assert min(losses) < losses[0] and all(math.isfinite(v) for v in losses)
    trajectory, _ = landscape.compute_landscape(run.dir, kind="trajectory", resolution=5, samples=128, device="cpu",
                                                save=False)
    assert len(trajectory.path) == 3  # the three saved points
    sharp = landscape.compute_sharpness(run.dir, k=1, samples=128, trace_samples=2, eps_steps=2, device="cpu",
                                        save=False)
    assert sharp["top_eigenvalues"][0] > 0
    evaluated = evaluate_run(run.dir, split="test", device="cpu", save=False)
    assert evaluated.summary["accuracy"] > 0.8  # the blobs are easy: the trained model is loaded, not a fresh one
    # at the start the gradient's signal is strong: a finite critical batch size
    result = noise_scale.run(NoiseScaleRequest(str(run.dir), batch_size=128, small_batch=8, repeats=5,
                                               checkpoint="initial", device="cpu"))
    assert result["trace"] > 0 and result["g2"] > 0 and 0 < result["b_simple"] < 10_000
    assert "critical batch size ≈" in critical_batch_line(result)
    later = noise_scale.run(NoiseScaleRequest(str(run.dir), batch_size=128, small_batch=8, repeats=5, device="cpu"))
    assert later["b_simple"] > result["b_simple"]  # near a minimum the noise dominates (McCandlish: B grows)


@pytest.mark.slow  # three CLI processes, each importing torch: 15-30 s on a busy 2-core machine
def test_studio_attach_and_noise_scale_cli(tmp_path: Path, studio_home: Path) -> None:
    import torch

    from tests.track.tiny_net import TinyNet

    model = TinyNet(hidden=8)
    torch.save(model.state_dict(), tmp_path / "model.pt")
    torch.save(_blobs(64), tmp_path / "data.pt")
    code = Path(__file__).with_name("tiny_net.py")
    done = run_cli("attach", "new", "--model", f"{code}:TinyNet", "--weights", str(tmp_path / "model.pt"),
                   "--data", str(tmp_path / "data.pt"), "--init", '{"hidden": 8}', "--json")
    assert done.returncode == 0, done.stderr
    out = last_json(done.stdout)
    assert out["class"] == "TinyNet" and out["samples"] == 64
    measured = run_cli("noise-scale", out["run_id"], "--batch", "32", "--repeats", "3", "--json", "--quiet")
    assert measured.returncode == 0, measured.stderr
    assert last_json(measured.stdout)["batch_size"] == 32
    wrong = run_cli("attach", out["run_id"], "--model", f"{code}:TinyNet", "--weights", str(tmp_path / "model.pt"))
    assert wrong.returncode == 2, wrong.stderr  # built with hidden=16: the weights (hidden=8) do not fit
    assert wrong.stderr.strip().count("\n") == 0 and "model.pt" in wrong.stderr
    before = RunStore().get(out["run_id"])
    assert [r.step for r in layout.list_checkpoints(before.dir)] == [0]  # the failed attach wrote nothing


def test_a_run_trained_elsewhere_is_not_resumable(studio_home: Path) -> None:
    run = _train_and_save(steps=2)
    info = RunStore().get(run.id)
    assert info.last_checkpoint is not None and not info.resumable
    done = run_cli("train", "--resume", run.id)
    assert done.returncode == 2 and "trained outside Studio" in done.stderr
