"""The "Ring all-reduce" and "DLRM hybrid" pages in a real window (Xvfb at 1024×768, the xcb platform, real clicks
through the X server): each is reached by its tab, Run starts the real job (rank processes and all), its result
is drawn, and in the light and the dark theme no control lies outside the window and no legend leaves its plot.
Skips without Xvfb or xdotool unless STUDIO_REQUIRE_XCB is set."""

from __future__ import annotations

import pytest

from tests.gui.xvfb_support import run_driver, xvfb


@pytest.mark.slow
def test_both_pages_run_their_job_and_fit_1024x768(tmp_path) -> None:
    with xvfb("1024x768") as display:
        out = run_driver("tests.gui.lab_pages_driver", ["1024x768", str(tmp_path / "shots")], display,
                         tmp_path / "home", timeout=600)
    for page in ("ring", "dlrm"):
        assert out[page]["shown"] and out[page]["error"] is None, out[page]
        assert out[page]["problems_light"] == [] and out[page]["problems_dark"] == [], out[page]
    assert "medians of 3 runs" in out["ring"]["status"]
    assert "the same training" in out["dlrm"]["status"]
    assert len(list((tmp_path / "shots").glob("*.png"))) == 4
