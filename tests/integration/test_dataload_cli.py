"""`studio dataload` end to end on a 200-image temp folder: the table and the verdict, --json's rows, the flags,
and bad input (one sentence, exit 2, before any process starts; a corrupt image skipped with a count)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from studio.core.contracts.dataload import ConfigRow, DataloadRequest, DataloadResult
from studio.core.errors import ConfigError
from studio.engine.dataload.sweep import run_sweep
from tests.conftest import last_json, run_cli

QUICK = ("--steps", "8", "--epochs", "2", "--batch-size", "16", "--quiet")


def write_folder(target: Path, n: int = 200, scale: int = 2) -> Path:
    from studio.core.host.paths import resource
    from studio.engine.dataload.pngs import write_pngs

    with np.load(resource("data", "fashion_mnist_small.npz")) as npz:
        write_pngs(npz["x_train"][:n, None], npz["y_train"][:n], [str(c) for c in npz["classes"]], target, scale)
    return target


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return write_folder(tmp_path_factory.mktemp("pngs"))


def test_json_rows_for_each_configuration_and_the_device_resident_path(folder):
    proc = run_cli("dataload", str(folder), "--workers", "0,1", "--persistent", "--json", *QUICK)
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert [r["label"] for r in out["rows"]] == ["0 workers", "1 worker", "1 worker, persistent", "device-resident"]
    assert [r["kind"] for r in out["rows"]] == ["loader"] * 3 + ["device"]
    assert out["images"] == 200 and out["classes"] == 10 and out["shape"] == [1, 56, 56] and out["skipped"] == 0
    for r in out["rows"]:
        assert r["steps"] == 8 and r["samples_per_s"] > 0 and 0 <= r["wait_share"] <= 1
        assert r["step_ms"] == pytest.approx(r["wait_ms"] + r["compute_ms"])
        assert r["gpu_util"] is None and r["pin_memory"] is None  # the CPU: n/a
    assert out["rows"][0]["speedup"] == 1.0
    assert out["rows"][1]["persistent"] is False and out["rows"][2]["persistent"] is True
    assert out["pin_memory"] == "n/a on CPU" and out["device"] == "cpu"
    assert out["gpu"].startswith("GPU utilisation is not measured")
    assert out["verdict"][0].isupper() and "of each step for data" in out["verdict"]
    assert set(out) == set(DataloadResult.__annotations__)  # the contract names every key the engine writes
    assert all(set(r) == set(ConfigRow.__annotations__) for r in out["rows"])


def test_table_and_verdict_line(folder):
    proc = run_cli("dataload", str(folder), "--workers", "0", "--pin-memory", "--no-device-resident", *QUICK)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["configuration", "samples/s"]
    assert lines[1].startswith("0 workers") and not any(ln.startswith("device-resident") for ln in lines)
    assert any("pin_memory is n/a on CPU" in ln for ln in lines)
    assert lines[-1].startswith("Verdict: ")


@pytest.mark.slow
def test_dataset_by_name_writes_its_images_once(tmp_path):
    env = dict(os.environ, STUDIO_HOME=str(tmp_path))
    env.pop("STUDIO_DATA_DIR", None)
    proc = run_cli("dataload", "--dataset", "fashion_mnist_small", "--workers", "0", "--no-device-resident",
                   "--json", "--limit", "300", *QUICK, env=env)
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["images"] == 300
    assert any("written once as PNG files" in n for n in out["notes"])
    assert (tmp_path / "datasets" / ".dataload" / "fashion_mnist_small-2000.done").exists()
    assert not any("not an image" in n for n in out["notes"])  # the marker is beside the folder, not in it


def test_a_corrupt_image_is_skipped_and_counted(tmp_path):
    write_folder(tmp_path, n=40)
    bad = next((tmp_path / "000_T-shirt_top").glob("*.png"))
    bad.write_bytes(bad.read_bytes()[:60])  # a truncated PNG: its header reads, its pixels do not
    (tmp_path / "001_Trouser" / "notes.txt").write_text("not an image")
    out = run_sweep(DataloadRequest(folder=str(tmp_path), workers="0", steps=4, epochs=2, batch_size=8))
    assert out["skipped"] == 1 and out["images"] == 39
    assert any(n.startswith("1 of 40 files could not be decoded and were left out") and bad.name in n
               for n in out["notes"])
    assert any("not an image" in n for n in out["notes"])


def never_started(_proc) -> None:
    raise AssertionError("the measurement started although the input was bad")


@pytest.mark.parametrize("setup, words", [
    ("empty", "is empty"),
    ("texts", "no images were found"),
    ("missing", "does not exist"),
])
def test_bad_folders_are_one_sentence_before_any_process(tmp_path, setup, words):
    folder = tmp_path / "data"
    if setup != "missing":
        folder.mkdir()
    if setup == "texts":
        (folder / "cats").mkdir()
        (folder / "cats" / "a.txt").write_text("meow")
    with pytest.raises(ConfigError, match=words) as err:
        run_sweep(DataloadRequest(folder=str(folder), steps=4), on_start=never_started)
    assert "\n" not in str(err.value)


def test_a_folder_of_only_corrupt_images_is_refused(tmp_path):
    (tmp_path / "cats").mkdir()
    for i in range(3):
        (tmp_path / "cats" / f"{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(ConfigError, match="none of the 3 image files could be read"):
        run_sweep(DataloadRequest(folder=str(tmp_path), steps=4), on_start=never_started)
    proc = run_cli("dataload", str(tmp_path), "--workers", "0", *QUICK)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "none of the 3 image files could be read" in proc.stderr


@pytest.mark.parametrize("args, words", [
    (("--workers", "a,b"), "whole numbers"),
    (("--workers", "0,100"), "to 64"),
    (("--steps", "1"), "at least 2 per epoch"),
    (("--size", "big"), "HEIGHTxWIDTH"),
])
def test_bad_flags_exit_2_with_one_line(folder, args, words):
    proc = run_cli("dataload", str(folder), *args, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("studio: error: ") and words in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_folder_and_dataset_together_are_refused(folder):
    proc = run_cli("dataload", str(folder), "--dataset", "fashion_mnist_small", timeout=60)
    assert proc.returncode == 2 and "not both" in proc.stderr


def test_size_and_seconds_flags(folder):
    """--size resizes what the model sees; --seconds caps each epoch of a configuration (at least 2 steps)."""
    proc = run_cli("dataload", str(folder), "--workers", "0", "--no-device-resident", "--size", "32x24",
                   "--seconds", "0.001", "--json", *QUICK)
    assert proc.returncode == 0, proc.stderr
    out = last_json(proc.stdout)
    assert out["shape"] == [1, 32, 24] and [r["steps"] for r in out["rows"]] == [4]


def test_an_imported_folder_is_found_by_its_dataset_name(tmp_path, monkeypatch):
    from studio.core.datasets.importers.pipeline import import_path
    from studio.engine.dataload.source import dataset_folder

    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "cache"))
    source = write_folder(tmp_path / "pets", n=30)
    report = import_path(source)
    folder, note = dataset_folder(report["name"])
    assert folder == source and "the image folder it was imported from" in note
    with pytest.raises(ConfigError, match="no dataset named 'nope'"):
        dataset_folder("nope")
