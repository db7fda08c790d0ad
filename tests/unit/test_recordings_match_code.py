"""Every demo and Parallelism-lab page ships a recording (resources/demos), made by the code as it is: the start of
each demo is computed again and compared with the frames its recording kept (a demo that emits no frames: its whole
result; the Scheduling page's replay in full). A change of code that changes what a demo shows fails here until the
recordings are made again with the one command: ``studio demo --record-all resources/demos``."""

from __future__ import annotations

import pytest

from studio.core.demos import recorder, recordings
from studio.core.demos.recording_file import Recording

REGENERATE = "make them again: studio demo --record-all resources/demos"


@pytest.mark.parametrize("name", recordings.names())
def test_it_ships_a_recording_made_at_its_default_settings(name):
    recording = recordings.shipped(name)
    assert recording is not None, f"{name} ships no recording; {REGENERATE}"
    assert recording.name == name
    assert recording.meta.get("studio") and recording.date and recording.meta.get("seconds") is not None
    assert recordings.path_of(name).stat().st_size < 400_000, "recordings stay small"


@pytest.mark.parametrize("name", recordings.names())
def test_the_code_still_makes_its_recording(name):
    recording = recordings.shipped(name)
    assert recording is not None, f"{name} ships no recording; {REGENERATE}"
    import os

    import torch

    threads = torch.get_num_threads()  # an earlier test in this process may have changed it (training in-process)
    torch.set_num_threads(os.cpu_count() or 1)  # as `studio demo --record-all` runs: torch's default, one per core
    try:
        assert recorder.check(recording) == [], f"{name}'s recording no longer matches the code; {REGENERATE}"
    finally:
        torch.set_num_threads(threads)


def test_the_check_sees_a_changed_result():
    """The check can fail: a recording whose first frames were changed is caught."""
    shipped = recordings.shipped("playground")
    assert shipped is not None and shipped.frames, REGENERATE
    frames = [dict(f) for f in shipped.frames]
    frames[-1]["train_loss"] = frames[-1]["train_loss"] * 1.01
    changed = recorder.check(Recording("playground", shipped.params, shipped.result, frames, shipped.meta))
    assert changed and "train_loss" in changed[0]


def test_the_check_sees_changed_defaults():
    shipped = recordings.shipped("linear_neuron")
    assert shipped is not None, REGENERATE
    params = {**shipped.params, "lr": shipped.params["lr"] * 2}
    assert "lr" in recorder.check(Recording("linear_neuron", params, shipped.result, [], shipped.meta))[0]
