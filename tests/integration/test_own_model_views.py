"""Every view's task on the three kinds of outside model: a user-file model on a user-file dataset (read through a
DataLoader with workers), a timm model (``test_resnet``, ``pretrained = false``: no download) on the same data, and a
tiny Hugging Face model (a random ``AutoConfig`` saved to disk, no weights) on Studio's labelled text.

One short run of each is trained once (module fixture); each test runs one view's background task on it, in this
process, as its job would: landscape, sharpness, histograms (written while training), layer activations, attention
(the HF model's own), the model summary and memory view, evaluation, predict, compression, export, the
data-parallel scaling measurement, and a queue sweep over the file's own argument.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from studio.core.contracts import layout
from tests.own_code_files import hf_model, timm_model, user_model, write_tiny_hf, write_user_files

pytestmark = pytest.mark.slow

COMMON = ["train.epochs=2", "train.batch_size=32", "train.checkpoint_every=1", "train.keep_checkpoints=0",
          "train.histogram_every=4", "train.attention_every=4", "data.workers=1"]
KINDS = ("user", "timm", "hf")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One finished run of each kind, in one store: {"home", "files", kind: run folder}."""
    from tests.unit.landscape_runs import train_run

    home = tmp_path_factory.mktemp("own_home")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("STUDIO_HOME", str(home))
    model, data = write_user_files(home.parent / "user_tree")
    hf = write_tiny_hf(home.parent / "tiny_bert")
    out = {"home": home, "files": (model, data), "hf": None}
    out["user"] = train_run(home, [*user_model(model, data, width=32), *COMMON])
    out["timm"] = train_run(home, [*timm_model(data), *COMMON])
    out["hf"] = train_run(home, [*hf_model(hf), *[c for c in COMMON if "workers" not in c]])
    yield out
    monkey.undo()


@pytest.fixture
def home(runs: dict, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_HOME", str(runs["home"]))
    return runs["home"]


def image_file(folder: Path) -> Path:
    from PIL import Image

    path = folder / "quarter.png"
    pixels = np.zeros((16, 16, 3), np.uint8)
    pixels[:8, :8] = 255
    Image.fromarray(pixels).save(path)
    return path


def test_the_run_folder_keeps_the_code_and_its_hash(runs: dict) -> None:
    from studio.core.usercode.run_copy import read_manifest
    from studio.core.usercode.trust import sha256_of

    copies = {c.section: c for c in read_manifest(runs["user"])}
    model, data = runs["files"]
    assert copies["model"].source == str(model) and copies["data"].source == str(data)
    assert copies["model"].sha256 == sha256_of(model) == sha256_of(layout.code_dir(runs["user"]) / "my_models.py")
    assert 'path = "code/my_models.py"' in layout.config_path(runs["user"]).read_text()
    assert read_manifest(runs["timm"]) == [c for c in read_manifest(runs["timm"]) if c.section == "data"]


@pytest.mark.parametrize("kind", KINDS)
def test_histograms_were_written_while_training(runs: dict, kind: str) -> None:
    lines = layout.histograms_path(runs[kind]).read_text().splitlines()
    assert lines and {"step", "name", "kind"} <= set(json.loads(lines[0]))


@pytest.mark.parametrize("kind", KINDS)
def test_landscape_and_sharpness(runs: dict, kind: str, home: Path) -> None:
    from studio.core.contracts.landscape import (
        LandscapeJobRequest,
        LandscapeRequest,
        SharpnessJobRequest,
        SharpnessRequest,
    )
    from studio.engine.tasks.landscape_job import run_landscape, run_sharpness

    result = run_landscape(LandscapeJobRequest(str(runs[kind]), LandscapeRequest(resolution=5, samples=64,
                                                                                  device="cpu")), None)
    loss = np.load(result["path"])["value:train/loss"]
    assert loss.shape == (5, 5) and np.isfinite(loss).all()
    sharp = run_sharpness(SharpnessJobRequest(str(runs[kind]), SharpnessRequest(k=1, samples=64, trace_samples=2,
                                                                                eps_steps=2, device="cpu")), None)
    assert np.isfinite(sharp["summary"]["top_eigenvalues"][0])


@pytest.mark.parametrize("kind", KINDS)
def test_evaluation(runs: dict, kind: str, home: Path) -> None:
    from studio.core.contracts.evaluation import EvaluationRequest
    from studio.engine.tasks.evaluation import run

    result = run(EvaluationRequest(str(runs[kind])))
    confusion = np.asarray(result["confusion"])
    assert confusion.sum() == result["examples"] > 0 and 0.0 <= result["accuracy"] <= 1.0


@pytest.mark.parametrize("kind", ("user", "timm"))
def test_predict_and_layer_activations(runs: dict, kind: str, home: Path, tmp_path: Path) -> None:
    from studio.core.contracts.activations import ActivationsRequest
    from studio.core.contracts.evaluation import PredictRequest
    from studio.engine.tasks import activations, predict

    picture = image_file(tmp_path)
    result = predict.run(PredictRequest(str(runs[kind]), (str(picture),), device="cpu"))
    top = result["predictions"][0]["top"]
    assert abs(sum(p["probability"] for p in top) - 1.0) < 1e-4 or len(top) < 4
    maps = activations.run(ActivationsRequest(str(runs[kind]), str(picture), device="cpu"))
    assert maps["layers"]


def test_attention_of_the_hugging_face_model(runs: dict, home: Path) -> None:
    from studio.core.contracts.attention import AttentionRequest
    from studio.engine.tasks.attention import run

    snapshots = layout.list_attention(runs["hf"])
    assert len(snapshots) >= 2, "attention snapshots while training"
    result = run(AttentionRequest(str(runs["hf"])))  # the first validation probe, at every snapshot
    assert [f["step"] for f in result["frames"]] == [r.step for r in snapshots]
    maps = result["frames"][-1]["maps"]
    assert maps.shape[:2] == (2, 2) and maps.shape[2] == maps.shape[3] == 17  # layers, heads, [CLS] + 16 words
    assert np.allclose(maps.sum(axis=-1), 1.0, atol=1e-3)  # each query's weights sum to one


@pytest.mark.parametrize("kind", KINDS)
def test_summary_and_memory_view(runs: dict, kind: str, home: Path) -> None:
    from studio.core.config import RunConfig
    from studio.core.contracts.jobs import SummaryRequest
    from studio.engine.tasks.summary import run

    config = RunConfig.load(layout.config_path(runs[kind]))
    result = run(SummaryRequest(config.to_dict()))
    assert result["total_params"] > 0 and result["memory"]["rows"][0]["measured"] > 0


@pytest.mark.parametrize("kind", KINDS)
def test_compression(runs: dict, kind: str, home: Path) -> None:
    from studio.core.contracts.compression import CompressRequest
    from studio.engine.tasks.compression import run

    result = run(CompressRequest(str(runs[kind]), prune_amount=0.5, save=False))
    assert 0.3 < result["after"]["sparsity"] <= 0.6 and result["before"]["sparsity"] < 0.1


@pytest.mark.parametrize("kind", KINDS)
def test_export_or_one_sentence_why_not(runs: dict, kind: str, home: Path, tmp_path: Path) -> None:
    from studio.core.contracts.export import ModelExportRequest
    from studio.core.errors import StudioError
    from studio.engine.tasks.export import run

    for fmt in ("torchscript", "export"):
        out = tmp_path / f"{kind}.{fmt}.pt"
        try:
            result = run(ModelExportRequest(str(runs[kind]), str(out), fmt=fmt))
        except StudioError as err:  # where an export cannot be made: why, in one sentence
            assert len(str(err).splitlines()) == 1, str(err)
            print(f"{kind} {fmt}: {err}")
            continue
        assert Path(result["path"]).is_file()


@pytest.mark.parametrize("kind", KINDS)
def test_data_parallel_scaling(runs: dict, kind: str, home: Path) -> None:
    from studio.core.config import RunConfig
    from studio.core.contracts.scaling import ScaleRequest
    from studio.engine.tasks.dp_scaling import run

    config = RunConfig.load(layout.config_path(runs[kind]))
    result = run(ScaleRequest(config.to_dict(), processes="1,2", steps=8, target=0.0))
    assert [r["processes"] for r in result["rows"]] == [1, 2]
