"""Recordings for slides from the command line (cli/_record.py): `studio compare --record`, `studio export --record`
and `studio landscape --record` write the GUI's own reels (the run list's Record the curves…, the Landscape tab's
Record…) as MP4 and GIF (read back with imageio: their frames and size) and PNG and SVG stills at the chosen size;
a wrong ending, an absurd size, a missing or read-only folder are refused in one line before any computing, a full
disk after it, exit 2, with nothing left behind. Two tiny moons runs, trained once through the CLI, are the input."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from studio.core.landscape import io
from studio.core.runs.names import shown_names
from studio.core.runs.store import RunStore
from studio.gui.plots.curves_reel import FRAMES
from tests.conftest import last_json, run_cli
from tests.reliability.mounts import made_read_only

iio = pytest.importorskip("imageio.v3")
pytest.importorskip("av")  # the record extra: MP4

# Two runs (seeds 0 and 1) of 68 steps, a curve point every step and a checkpoint every epoch (3 on the path).
CONFIG = ('[data]\nname = "moons"\nn_samples = 300\n[model]\nname = "mlp"\nwidths = [16]\n'
          '[train]\nepochs = 2\nbatch_size = 8\nmetric_interval = 1\ncheckpoint_every = 1\n')


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[dict[str, str], list[str]]:
    """(the environment of a store holding the two runs, their ids)."""
    home = tmp_path_factory.mktemp("record_home")
    (home / "tiny.toml").write_text(CONFIG)
    env = dict(os.environ, STUDIO_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    proc = run_cli("train", "--config", str(home / "tiny.toml"), "--seeds", "0,1", "--json", "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    return env, [r["run_id"] for r in last_json(proc.stdout)["runs"]]


def studio(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = run_cli(*args, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def frames_of(path: Path) -> tuple[int, tuple[int, int]]:
    """A movie's frame count and (width, height), as imageio decodes it."""
    frames = iio.imread(path, index=None, **({"plugin": "pyav"} if path.suffix == ".mp4" else {}))
    return frames.shape[0], (frames.shape[2], frames.shape[1])


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def test_compare_records_the_curves_growing_and_stills_at_the_chosen_size(runs, tmp_path):
    env, ids = runs
    rc, out, err = studio(env, "compare", *ids, "--record", str(tmp_path / "curves.mp4"), "--size", "640x360",
                          "--json")
    assert rc == 0, err
    table = last_json(out)
    assert table["recorded"] == str(tmp_path / "curves.mp4") and [r["run_id"] for r in table["runs"]] == ids
    assert frames_of(tmp_path / "curves.mp4") == (FRAMES, (640, 360))
    rc, out, err = studio(env, "compare", *ids, "--record", str(tmp_path / "curves.gif"), "--size", "320x240")
    assert rc == 0 and err.strip().splitlines()[-1] == f"recorded: {tmp_path / 'curves.gif'}"
    assert ids[0] in out  # the table, as without --record
    assert frames_of(tmp_path / "curves.gif") == (FRAMES, (320, 240))
    svg = tmp_path / "curves.svg"
    assert studio(env, "compare", *ids, "--record", str(svg), "--size", "800x600")[0] == 0
    names = shown_names(RunStore(Path(env["STUDIO_HOME"])))  # the caption names the runs as the run list does
    assert f"{names[ids[0]]}, {names[ids[1]]} — step 68" in svg.read_text(encoding="utf-8")


def test_the_cli_still_is_the_one_record_the_curves_makes(runs, tmp_path, qtbot):
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from studio.gui.plots.curves_reel import reel_of_runs
    from studio.gui.widgets.reel import record

    env, ids = runs
    for style in ("projector", "screen"):
        assert studio(env, "compare", *ids, "--record", str(tmp_path / f"{style}.png"), "--size", "800x600",
                      "--style", style)[0] == 0
    projector, screen = pixels(tmp_path / "projector.png"), pixels(tmp_path / "screen.png")
    assert projector.shape == (600, 800, 3) and not np.array_equal(projector, screen)
    store = RunStore(Path(env["STUDIO_HOME"]))
    names = shown_names(store)
    drawn = {k: pg.getConfigOption(k) for k in ("background", "foreground", "antialias")}
    pg.setConfigOptions(background="w", foreground="k", antialias=True)  # as the command's own application draws
    app = QApplication.instance()
    palette = app.palette()  # an earlier test may have themed this application; the command's is a fresh one
    app.setPalette(app.style().standardPalette())
    try:
        reel = reel_of_runs(store, ids, {r: names[r] for r in ids}, True)  # what commands.record_curves records
        record(reel, tmp_path / "gui.png", (800, 600))
    finally:
        pg.setConfigOptions(**drawn)
        app.setPalette(palette)
    assert np.array_equal(pixels(tmp_path / "gui.png"), projector)


def test_export_records_one_runs_curves_beside_its_png(runs, tmp_path):
    env, ids = runs
    rc, out, err = studio(env, "export", ids[0], "--record", str(tmp_path / "one.mp4"), "--size", "320x180",
                          "--png", str(tmp_path / "one.png"), "--json")
    assert rc == 0, err
    report = last_json(out)
    assert report["recorded"] == str(tmp_path / "one.mp4") and report["png"]["path"] == str(tmp_path / "one.png")
    assert frames_of(tmp_path / "one.mp4") == (FRAMES, (320, 180))
    assert pixels(tmp_path / "one.png").shape == (800, 1200, 3)  # --png keeps its own size


def test_landscape_records_the_trajectory_one_checkpoint_a_frame_and_a_2d_still(runs, tmp_path):
    env, ids = runs
    rc, out, err = studio(env, "landscape", ids[0], "--kind", "trajectory", "--resolution", "5", "--record",
                          str(tmp_path / "path.gif"), "--size", "480x360", "--json", "--quiet")
    assert rc == 0, err
    report = last_json(out)
    checkpoints = io.load(report["path"]).path.shape[0]
    assert report["recorded"] == str(tmp_path / "path.gif") and checkpoints == 3
    assert frames_of(tmp_path / "path.gif") == (checkpoints, (480, 360))
    assert studio(env, "landscape", ids[0], "--kind", "trajectory", "--resolution", "5", "--record",
                  str(tmp_path / "path.mp4"), "--quiet")[0] == 0
    assert frames_of(tmp_path / "path.mp4") == (checkpoints, (1280, 720))  # the default size
    rc, _, err = studio(env, "landscape", ids[0], "--kind", "2d", "--resolution", "5", "--samples", "200",
                        "--record", str(tmp_path / "plane.svg"), "--log-scale", "--quiet")
    assert rc == 0, err
    svg = (tmp_path / "plane.svg").read_text(encoding="utf-8")
    assert "log₁₀ loss" in svg and "The loss around final" in svg


COMMANDS = {"compare": lambda ids: ["compare", *ids],
            "export": lambda ids: ["export", ids[0]],
            "landscape": lambda ids: ["landscape", ids[0], "--kind", "trajectory", "--resolution", "5"]}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_target_that_cannot_be_written_is_refused_before_any_computing(runs, tmp_path, command):
    env, ids = runs
    landscapes = Path(env["STUDIO_HOME"]) / "runs" / ids[0] / "landscapes"
    before = sorted(landscapes.glob("*.npz"))
    folder = tmp_path / "slides"
    folder.mkdir()
    refusals = [(["--record", str(folder / "talk.doc")],
                 "a recording is saved as MP4, GIF, PNG, SVG; 'talk.doc' has none of those endings"),
                (["--record", str(folder / "talk.mp4"), "--size", "8x9000"],
                 "a recording is 16 to 4096 pixels a side; got 8x9000"),
                (["--record", str(folder / "missing" / "talk.gif")], f"the folder {folder / 'missing'} does not exist")]
    for extra, sentence in refusals:
        rc, out, err = studio(env, *COMMANDS[command](ids), *extra, "--json")
        assert (rc, out, err.splitlines()) == (2, "", [f"studio: error: {sentence}"])
    with made_read_only(folder):
        rc, out, err = studio(env, *COMMANDS[command](ids), "--record", str(folder / "talk.png"), "--json")
    assert (rc, out, err.splitlines()) == (2, "", [f"studio: error: cannot write to {folder}: choose a folder you "
                                                   f"can write to"])
    assert list(folder.iterdir()) == [] and sorted(landscapes.glob("*.npz")) == before


def test_a_1d_landscape_is_refused_before_computing_and_a_full_disk_after_it(runs, tmp_path):
    env, ids = runs
    for extra, sentence in ((["--size", "640x360"], "--size goes with --record FILE"),
                            (["--log-scale"], "--log-scale goes with --record FILE")):
        assert studio(env, "landscape", ids[0], *extra) == (2, "", f"studio: error: {sentence}\n")
    rc, out, err = studio(env, "landscape", ids[0], "--kind", "1d", "--record", str(tmp_path / "line.gif"))
    assert (rc, out, err.splitlines()) == (2, "", ["studio: error: a 1-D landscape is a curve, not a picture to "
                                                   "animate: --record takes --kind 2d or trajectory"])
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    (tmp_path / "path.gif.part").symlink_to("/dev/full")  # every write of the recording fails: ENOSPC
    rc, out, err = studio(env, "landscape", ids[0], "--kind", "trajectory", "--resolution", "5", "--record",
                          str(tmp_path / "path.gif"), "--json", "--quiet")
    assert rc == 2 and err.splitlines() == ["studio: error: the disk is full: path.gif was not saved; free some "
                                            "space or choose another folder"]
    report = last_json(out)  # the landscape was computed and saved: it is reported all the same
    assert "recorded" not in report and Path(report["path"]).is_file()
    assert list(tmp_path.iterdir()) == []
