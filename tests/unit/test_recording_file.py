"""The recording file a demo ships (core/demos/recording_file.py): what goes in comes back, small, and a damaged,
oversized or newer file is refused in one sentence."""

from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pytest

from studio.core.demos import recording_file as rf
from studio.core.errors import DataError


def sample() -> rf.Recording:
    rng = np.random.default_rng(0)
    result = {"summary": {"runs": {"32": {"gap": 0.1, "steps_to_target": None}}, "loss": float("nan")},
              "curve": rng.normal(size=50), "ints": np.arange(5), "box": (0.0, 1.0, -1.0, 2.0),
              "frames": [{"step": i, "p": rng.random((64, 64))} for i in range(3)], "big": rng.normal(size=5000) * 3,
              7: "an int key", "labels": ["gd", "adam"], "inf": -math.inf}
    return rf.Recording("demo", {"lr": 0.1, "widths": "16,16"}, result, [{"step": 0, "x": rng.normal(size=3)}],
                        {"recorded": "2026-01-02T03:04:05+00:00", "seconds": 12.5})


def test_what_is_saved_comes_back(tmp_path):
    rec = sample()
    back = rf.load(rf.save(rec, tmp_path / "demo.npz"))
    assert back.name == "demo" and back.params == rec.params and back.date == "2026-01-02"
    r = back.result
    assert r[7] == "an int key" and r["box"] == (0.0, 1.0, -1.0, 2.0) and r["labels"] == ["gd", "adam"]
    assert math.isnan(r["summary"]["loss"]) and r["inf"] == -math.inf and r["summary"]["runs"]["32"]["gap"] == 0.1
    np.testing.assert_allclose(r["curve"], rec.result["curve"], rtol=1e-6)  # float32
    assert r["ints"].dtype.kind == "i" and list(r["ints"]) == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(r["big"], rec.result["big"], rtol=1e-3, atol=1e-2)  # float16
    for mine, theirs in zip(r["frames"], rec.result["frames"], strict=True):  # [0, 1] pictures: 256 levels
        assert mine["p"].dtype == np.float64
        np.testing.assert_allclose(mine["p"], theirs["p"], atol=0.5 / 255 + 1e-7)
    np.testing.assert_allclose(back.frames[0]["x"], rec.frames[0]["x"], rtol=1e-6)  # the check's frames: float32


def test_big_pictures_are_stored_small(tmp_path):
    rec = rf.Recording("demo", {}, {"frames": [np.random.default_rng(i).random((64, 64)) for i in range(60)]})
    size = rf.save(rec, tmp_path / "demo.npz").stat().st_size
    assert size < 1.2 * 60 * 64 * 64  # about a byte a value, noise included (float32 would be four)


def test_nothing_in_a_recording_is_pickled(tmp_path):
    path = rf.save(sample(), tmp_path / "demo.npz")
    with np.load(path, allow_pickle=False) as data:  # loads without allowing pickles
        assert all(data[k].dtype != object for k in data.files)


def test_a_damaged_file_is_refused_in_one_sentence(tmp_path):
    path = rf.save(sample(), tmp_path / "demo.npz")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match="damaged") as err:
        rf.load(path)
    assert "\n" not in str(err.value)


def test_a_file_from_a_newer_studio_is_refused(tmp_path):
    path = tmp_path / "new.npz"
    tree = json.dumps({"format": rf.FORMAT + 1, "name": "x", "params": {}, "result": {}}).encode()
    np.savez(path, **{rf.TREE: np.frombuffer(tree, dtype=np.uint8)})
    with pytest.raises(DataError, match="newer Studio"):
        rf.load(path)


def test_an_oversized_file_is_refused(tmp_path, monkeypatch):
    path = rf.save(sample(), tmp_path / "demo.npz")
    with zipfile.ZipFile(path) as z:
        size = sum(i.file_size for i in z.infolist())
    monkeypatch.setattr(rf, "MAX_BYTES", size - 1)
    with pytest.raises(DataError, match="too large"):
        rf.load(path)
