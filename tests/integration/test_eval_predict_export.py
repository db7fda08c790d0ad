"""`studio eval`, `studio predict` and `studio export` on one real short run of the bundled data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from studio import cli
from studio.core.runs.store import RunStore
from tests.conftest import run_cli
from tests.unit.eval_run import shared_run


@pytest.fixture(scope="module")
def run() -> dict:
    """One trained run of the bundled Fashion-MNIST subset, shared by every test here (and the GUI's)."""
    home, run_dir = shared_run()
    store = RunStore(home)
    info = store.get(run_dir.name)
    store.close()
    return {"home": home, "dir": run_dir, "id": run_dir.name, "summary": info.summary}


@pytest.fixture
def in_store(run: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setenv("STUDIO_HOME", str(run["home"]))
    return run


def last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def studio(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """``studio ARGV`` in this process (the CLI's own entry, minus the interpreter start)."""
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_eval_json_contract_and_hand_computed_scores(in_store: dict):
    proc = run_cli("eval", in_store["id"], "--json", "--quiet", env={**os.environ})
    assert proc.returncode == 0, proc.stderr
    s = last_json(proc.stdout)
    assert {"accuracy", "per_class", "confusion", "ece", "seconds"} <= set(s)
    confusion = np.array(s["confusion"])
    assert confusion.sum() == s["examples"] == 2000  # the bundled test split
    assert np.trace(confusion) / confusion.sum() == pytest.approx(s["accuracy"])
    assert s["accuracy"] == pytest.approx(in_store["summary"]["test_acc"], abs=1e-9)  # the trainer's own evaluation
    saved = np.load(Path(s["path"]).with_suffix(".npz"))
    probs, labels = saved["probs"], saved["labels"]
    predicted = [max(range(10), key=lambda k, row=row: row[k]) for row in probs.tolist()]
    for c, scores in enumerate(s["per_class"]):  # one class at a time, by counting
        tp = sum(1 for t, p in zip(labels, predicted, strict=True) if t == c and p == c)
        fp = sum(1 for t, p in zip(labels, predicted, strict=True) if t != c and p == c)
        fn = sum(1 for t, p in zip(labels, predicted, strict=True) if t == c and p != c)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        assert scores["support"] == tp + fn
        assert (scores["precision"], scores["recall"], scores["accuracy"]) == pytest.approx((precision, recall, recall))
        assert scores["f1"] == pytest.approx(f1)
    confidence = probs.max(axis=1)
    correct = np.array(predicted) == labels
    ece = 0.0
    for lo, hi in zip(np.linspace(0, 1, 16)[:-1], np.linspace(0, 1, 16)[1:], strict=True):
        inside = (confidence > lo) & (confidence <= hi)
        if inside.any():
            ece += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())
    assert s["ece"] == pytest.approx(ece, abs=1e-6)  # float32 probabilities
    mistakes = s["mistakes"]
    assert len(mistakes) == 24 and saved["mistake_images"].shape == (24, 1, 28, 28)
    assert all(m["true"] != m["predicted"] for m in mistakes)
    assert [m["probability"] for m in mistakes] == sorted((m["probability"] for m in mistakes), reverse=True)


def test_predict_on_a_training_image_matches_eval(run: dict, tmp_path: Path, capsys: pytest.CaptureFixture):
    from studio.engine.replay import RunData

    code, out, err = studio(capsys, "eval", str(run["dir"]), "--split", "train", "--json", "--quiet")
    assert code == 0, err
    s = last_json(out)
    train = RunData(run["dir"]).split("train")
    assert s["examples"] == len(train) == 9000 and np.sum(s["confusion"]) == 9000
    probs = np.load(Path(s["path"]).with_suffix(".npz"))["probs"]
    picks = [0, s["mistakes"][0]["index"]]  # an ordinary image and the most confident mistake
    folder = tmp_path / "images"
    folder.mkdir()
    for i in picks:
        Image.fromarray(train.x[i, 0].numpy()).save(folder / f"train_{i}.png")
    code, out, err = studio(capsys, "predict", str(run["dir"]), str(folder / f"train_{picks[0]}.png"), str(folder),
                            "--top-k", "3", "--json")
    assert code == 0, err
    predictions = last_json(out)["predictions"]
    assert len(predictions) == 3  # the file, then the folder's two images
    by_index = {0: predictions[0], picks[1]: predictions[2], **({} if picks[1] == 0 else {0: predictions[1]})}
    for i, p in by_index.items():
        assert p["predicted"] == s["classes"][int(probs[i].argmax())]
        assert p["probability"] == pytest.approx(float(probs[i].max()), abs=1e-5)
        assert [t["probability"] for t in p["top"]] == sorted((t["probability"] for t in p["top"]), reverse=True)
    assert predictions[2]["predicted"] == s["mistakes"][0]["predicted"]
    # a CSV row of the same pixels, with a label column, says the same
    row = ",".join(["label", *[f"pixel{j}" for j in range(784)]]) + "\n"
    row += ",".join(["3", *map(str, train.x[0].flatten().tolist())]) + "\n"
    (tmp_path / "row.csv").write_text(row)
    code, out, err = studio(capsys, "predict", str(run["dir"]), str(tmp_path / "row.csv"), "--json")
    assert code == 0, err
    assert last_json(out)["predictions"][0]["probability"] == pytest.approx(predictions[0]["probability"], abs=1e-6)


def test_bad_inputs_get_one_line_and_exit_2(run: dict, tmp_path: Path, capsys: pytest.CaptureFixture):
    (tmp_path / "notes.png").write_text("not an image")
    (tmp_path / "narrow.csv").write_text("1,2,3\n4,5,6\n")
    bare = tmp_path / "no_checkpoints"
    shutil.copytree(run["dir"], bare, ignore=shutil.ignore_patterns("checkpoints", "evaluations"))
    cases = [
        (("predict", str(run["dir"]), str(tmp_path / "notes.png")), "notes.png is not a readable image"),
        (("predict", str(run["dir"]), str(tmp_path / "narrow.csv")), "row 1 has 3 values; this run's model takes 784"),
        (("predict", str(run["dir"]), str(tmp_path / "missing.png")), "does not exist"),
        (("eval", "no-such-run"), "no run 'no-such-run'"),
        (("predict", "no-such-run", str(tmp_path / "notes.png")), "no run 'no-such-run'"),
        (("eval", str(bare)), "has no checkpoints"),
        (("export", str(run["dir"])), "nothing to export"),
    ]
    for argv, message in cases:
        code, out, err = studio(capsys, *argv)
        assert code == 2, (argv, err)
        errors = [line for line in err.splitlines() if line.startswith("studio: error:")]
        assert len(errors) == 1 and message in errors[0] and "Traceback" not in err, err


def test_export_curves_tensorboard_and_a_model_that_loads_without_studio(in_store: dict, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = in_store
    code, out, err = studio(capsys, "export", str(run["dir"]), "--csv", str(tmp_path / "c.csv"), "--png",
                            str(tmp_path / "c.png"), "--tensorboard", str(tmp_path / "tb"), "--model",
                            str(tmp_path / "model"), "--json")
    assert code == 0, err
    result = last_json(out)
    store = RunStore(run["home"])
    rows = store.metric_rows_after(run["id"], 0)
    assert result["csv"]["rows"] == len(rows) == len((tmp_path / "c.csv").read_text().splitlines()) - 1
    assert Image.open(tmp_path / "c.png").size == (1200, 800)
    events = EventAccumulator(result["tensorboard"]["path"], size_guidance={"scalars": 0})
    events.Reload()
    logged: dict[str, list] = {}
    for _, step, name, value, wall in rows:
        logged.setdefault(name, []).append((step, value, wall))
    assert set(events.Tags()["scalars"]) == set(logged)
    for name, points in logged.items():
        read = events.Scalars(name)
        assert [(e.step, e.wall_time) for e in read] == [(s, pytest.approx(w)) for s, _, w in points]
        assert [e.value for e in read] == pytest.approx([v for _, v, _ in points], rel=1e-6)

    model = Path(result["model"]["path"])
    assert model.suffix == ".pt2" and json.loads(Path(result["model"]["config_path"]).read_text())["classes"][1] == \
        "Trouser"
    code, out, err = studio(capsys, "export", run["id"], "--model", str(tmp_path / "ts.pt"), "--format", "torchscript",
                            "--json")
    assert code == 0, err
    from studio.engine.replay import RunData
    from studio.engine.tasks.predict import predict

    images = RunData(run["dir"]).split("test").x[:5]
    np.save(tmp_path / "x.npy", images.numpy())
    for i in range(5):
        Image.fromarray(images[i, 0].numpy()).save(tmp_path / f"t{i}.png")
    files = [tmp_path / f"t{i}.png" for i in range(5)]
    expected = [p["top"] for p in predict(run["dir"], files, top=10)["predictions"]]
    plain = (  # a fresh interpreter in which Studio cannot even be imported
        "import sys, json; sys.modules['studio'] = None\n"
        "import numpy as np, torch\n"
        "x = torch.from_numpy(np.load(sys.argv[1]))\n"
        "a = torch.export.load(sys.argv[2]).module()(x)\n"
        "b = torch.jit.load(sys.argv[3])(x)\n"
        "print(json.dumps([a.tolist(), b.tolist()]))\n")
    argv = [sys.executable, "-I", "-c", plain, str(tmp_path / "x.npy"), str(model), str(tmp_path / "ts.pt")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    classes = json.loads(Path(result["model"]["config_path"]).read_text())["classes"]
    for probs in json.loads(proc.stdout.strip().splitlines()[-1]):
        for row, top in zip(probs, expected, strict=True):
            assert {t["class"]: t["probability"] for t in top} == pytest.approx(dict(zip(classes, row, strict=True)),
                                                                                abs=1e-5)


def test_pt2_states_its_input_dtype_and_torch_refuses_another(run: dict, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture):
    """Issue 20: a .pt2 takes one input dtype (torch.export fixes it), said in the --json result and the card;
    plain torch refuses the other with a message naming both dtypes. TorchScript takes uint8 and float alike,
    with the same probabilities."""
    code, out, err = studio(capsys, "export", str(run["dir"]), "--model", str(tmp_path / "m.pt2"), "--json")
    assert code == 0, err
    result = last_json(out)["model"]
    card = json.loads(Path(result["config_path"]).read_text())
    assert result["input_dtype"] == card["input_dtype"] == "uint8" and "uint8 only" in card["input"]
    code, out, err = studio(capsys, "export", str(run["dir"]), "--model", str(tmp_path / "m.pt"), "--format",
                            "torchscript", "--json")
    assert code == 0 and last_json(out)["model"]["input_dtype"] == "any", err
    from studio.engine.replay import RunData

    np.save(tmp_path / "x.npy", RunData(run["dir"]).split("test").x[:4].numpy())
    plain = (  # Studio cannot be imported here
        "import sys, json; sys.modules['studio'] = None\n"
        "import numpy as np, torch\n"
        "x = torch.from_numpy(np.load('x.npy'))\n"
        "pt2, ts = torch.export.load('m.pt2').module(), torch.jit.load('m.pt')\n"
        "try:\n    pt2(x.float()); refused = ''\nexcept RuntimeError as err:\n    refused = str(err)\n"
        "print(json.dumps([pt2(x).tolist(), ts(x).tolist(), ts(x.float()).tolist(), refused]))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", plain], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    from_uint8, ts_uint8, ts_float, refused = json.loads(proc.stdout.strip().splitlines()[-1])
    assert np.allclose(from_uint8, ts_uint8, atol=1e-5) and np.allclose(ts_uint8, ts_float, atol=1e-6)
    assert "dtype mismatch" in refused and "Byte" in refused and "float" in refused.lower(), refused


def test_tensorboard_missing_is_a_clear_exit_2(run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
                                               monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)
    code, _, err = studio(capsys, "export", str(run["dir"]), "--tensorboard", str(tmp_path / "tb"))
    assert code == 2 and err.startswith("studio: error:") and "needs the tensorboard package" in err
    assert len(err.strip().splitlines()) == 1
