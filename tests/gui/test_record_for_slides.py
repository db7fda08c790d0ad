"""Recordings for slides (widgets/reel.py, movie_file.py): a demo, the curves and a landscape's path as MP4 and
GIF (decoded again to count their frames), PNG and SVG stills at the chosen size; a full disk (the file written
through /dev/full) or a bad name is refused in one sentence, nothing is left behind and the view is untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtWidgets import QApplication

from studio.core.demos import recordings
from studio.gui.demos.demo_reel import DemoReel, reel_of
from studio.gui.demos.lab import VIEWS
from studio.gui.plots.curves_reel import CurvesReel
from studio.gui.plots.trajectory_reel import TrajectoryReel
from studio.gui.widgets.movie_file import MovieError
from studio.gui.widgets.record_dialog import RecordOptions, save_recording
from studio.gui.widgets.reel import record

av = pytest.importorskip("av")  # the record extra


def race_reel() -> DemoReel:
    shipped = recordings.shipped("optimizer_race")
    assert shipped is not None
    return DemoReel(VIEWS["optimizer_race"], shipped.params, shipped.result, True, "Optimizer race")


def mp4_frames(path: Path) -> tuple[int, tuple[int, int]]:
    with av.open(str(path)) as container:
        frames = [f for f in container.decode(video=0)]
    return len(frames), (frames[0].width, frames[0].height)


def test_a_demo_records_as_mp4_gif_png_and_svg_at_the_chosen_size(qtbot, tmp_path):
    reel = race_reel()
    count = reel.count()
    assert count == recordings.shipped("optimizer_race").params["steps"] + 1
    made = record(reel, tmp_path / "race.mp4", (640, 360))
    assert made.frames == count and mp4_frames(made.path) == (count, (640, 360))
    gif = record(reel, tmp_path / "race.gif", (320, 240)).path
    with Image.open(gif) as im:
        assert im.n_frames == count and im.size == (320, 240)
    png = record(reel, tmp_path / "race.png", (1024, 768)).path
    with Image.open(png) as im:
        assert im.size == (1024, 768)
        pixels = np.asarray(im.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50  # a picture, not a blank
    svg = record(reel, tmp_path / "race.svg", (800, 600)).path.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "step 200" in svg  # the caption, as text


def test_a_long_demo_is_thinned_to_at_most_240_frames(qtbot, tmp_path):
    shipped = recordings.shipped("noise_scale")
    reel = DemoReel(VIEWS["noise_scale"], shipped.params, shipped.result, False)
    made = record(reel, tmp_path / "noise.mp4", (320, 180))
    assert reel.count() > 240 and made.frames == 240 and mp4_frames(made.path)[0] == 240


@pytest.mark.parametrize("suffix", [".mp4", ".gif", ".png"])
def test_a_full_disk_is_one_sentence_and_leaves_nothing(qtbot, tmp_path, suffix):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    target = tmp_path / f"demo{suffix}"
    (tmp_path / f"demo{suffix}.part").symlink_to("/dev/full")  # every write to the file fails: ENOSPC
    with pytest.raises(MovieError) as err:
        record(race_reel(), target, (320, 240))
    assert str(err.value) == f"the disk is full: demo{suffix} was not saved; free some space or choose another folder"
    assert list(tmp_path.iterdir()) == []


def test_the_view_on_screen_is_untouched_and_the_status_says_where(qtbot, tmp_path):
    view = VIEWS["playground"](None)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitExposed(view)
    QApplication.processEvents()  # the layout settles before the sizes are compared
    before = (view.graphics.size(), view.player.position, view.result)
    text, failed = save_recording(lambda style: reel_of(view, style), tmp_path / "boundary", RecordOptions("gif",
                                                                                                          (320, 240)))
    assert not failed and text == f"Recorded boundary.gif (61 frames, 320 × 240) in {tmp_path}."
    assert (view.graphics.size(), view.player.position, view.result) == before
    text, failed = save_recording(lambda style: reel_of(view, style), tmp_path / "missing" / "x",
                                  RecordOptions("png"))
    assert failed and text == f"Not recorded: the folder {tmp_path / 'missing'} does not exist."


def test_the_curves_grow_frame_by_frame(qtbot, tmp_path):
    steps = np.arange(0, 1000, 10)
    data = {"run-a": {"train/loss": (steps, np.exp(-steps / 300))},
            "run-b": {"train/loss": (steps, np.exp(-steps / 150))}}
    reel = CurvesReel(data, {"run-a": "adam", "run-b": "sgd"}, presentation=False, frames=12)
    made = record(reel, tmp_path / "curves.mp4", (640, 360))
    assert made.frames == 12 and reel.caption() == "adam, sgd — step 990"
    reel.show(0)
    first = reel.view.point_count("run-a", "train/loss")
    reel.show(11)
    assert 0 < first < reel.view.point_count("run-a", "train/loss")


def test_a_trajectory_draws_one_more_checkpoint_each_frame(qtbot, tmp_path):
    from types import SimpleNamespace

    x = y = np.linspace(-1, 1, 21)
    loss = np.add.outer(x ** 2, y ** 2)
    path = np.array([[-0.9, 0.8], [-0.5, 0.4], [-0.2, 0.1], [0.0, 0.0]])
    result = SimpleNamespace(x=x, y=y, loss=loss, path=path, meta={"explained_variance": [0.8, 0.1]}, kind="trajectory")
    reel = TrajectoryReel(result, log=False)
    made = record(reel, tmp_path / "path.gif", (320, 240))
    assert made.frames == 4
    reel.show(1)
    assert len(reel.heatmap.path_item.getData()[0]) == 2


def test_the_cli_records_a_demo_and_refuses_bad_targets_in_one_line(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-m", "studio", "demo", "linear_neuron", "--recorded", "--record",
                          str(tmp_path / "line.png"), "--size", "800x600", "--quiet"], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    with Image.open(tmp_path / "line.png") as im:
        assert im.size == (800, 600)
    bad = subprocess.run([sys.executable, "-m", "studio", "demo", "linear_neuron", "--record",
                          str(tmp_path / "line.doc")], capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1].startswith("studio: error: a recording is saved")
    assert len(bad.stderr.strip().splitlines()) == 1  # refused before computing: no progress, one line
