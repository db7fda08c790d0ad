""""One model, four ways" streams each configuration as it finishes (issue 33): the task emits a frame per
configuration (the result so far, the rest pending), so the page shows single and DDP while the pipelines train."""

from __future__ import annotations

import time

from studio.core.contracts.parallel import ParallelRequest
from studio.engine.tasks.parallel import run


def test_each_configuration_arrives_as_a_frame_before_the_result() -> None:
    frames: list[tuple[float, dict]] = []
    request = ParallelRequest(modes=("single", "ddp", "pipeline-gpipe"), microbatches=(2,), widths=(32, 32),
                              batch_size=16, steps=8, warmup_steps=2, timeline_steps=2)
    result = run(request, emit=lambda frame: frames.append((time.monotonic(), frame)))
    ended = time.monotonic()
    assert [[r["mode"] for r in f["rows"]] for _, f in frames] == [
        ["single"], ["single", "ddp"], ["single", "ddp", "pipeline-gpipe"]]
    assert [f["pending"] for _, f in frames] == [[("ddp", 1), ("pipeline-gpipe", 2)], [("pipeline-gpipe", 2)], []]
    assert frames[0][0] < ended  # single was there before the pipelines ended
    assert frames[-1][1]["rows"] == result["rows"]  # the frames are the result, as it grew
    assert frames[1][1]["rows"][1]["max_loss_gap"] <= result["loss_tolerance"]  # DDP against single, at once
