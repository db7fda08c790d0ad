"""Issue 33.3 and 33.4 in a real window (Xvfb, xcb, real clicks through the X server): runs of three kinds (an MLP
image-free moons run with histograms, a gpt_lm text run, a ViT image run) are clicked in the run list one after
the other; every analysis view then shows the run clicked, by the name the run list gives it, with its content
(Attention's maps are that run's, computed by real jobs), or names it and says why it cannot show it. The
driver is tests/gui/run_views_driver.py; STUDIO_SHOTS=DIR keeps its screenshots."""

from __future__ import annotations

import os

import pytest

from tests.gui.xvfb_support import run_driver, xvfb

ONE_RUN_VIEWS = ("histograms", "attention", "landscape", "evaluation", "compression")
SHOWS = {  # which kinds each one-run view can show (the others it names, with why)
    "histograms": {"mlp"}, "attention": {"gpt_lm", "vit"},
    "landscape": {"mlp", "gpt_lm", "vit"}, "evaluation": {"mlp", "gpt_lm", "vit"},
    "compression": {"mlp", "gpt_lm", "vit"},
}


@pytest.mark.slow  # three runs trained and four attention jobs: a minute or more on a busy 2-core machine
@pytest.mark.parametrize(("size", "theme"), [("1280x800", "light"), ("1024x768", "dark")])
def test_every_view_shows_the_run_clicked_in_the_run_list(tmp_path, size, theme):
    shots = os.environ.get("STUDIO_SHOTS")
    with xvfb(size) as display:
        result = run_driver("tests.gui.run_views_driver", [size, *([shots] if shots else [])], display,
                            tmp_path / "home", timeout=600, STUDIO_THEME=theme)
    names, ids = result["names"], result["ids"]
    assert len(set(names.values())) == len(names)  # no two runs look alike
    for step in result["steps"]:
        run_id, kind = ids[step["kind"]], step["kind"]
        name = names[run_id]
        assert step["selected"] == [run_id] and step["row"] == name == step["name"], step
        assert name in step["key"]  # the curves' key names it the same
        for view in ONE_RUN_VIEWS:
            seen = step[view]
            assert seen["current"], (view, seen)
            if kind in SHOWS[view]:
                assert seen["run"] == run_id and seen["text"] == name, (view, seen)
                assert seen["shown"].split()[0] == name.split()[0], (view, seen)  # the model's name stays
            else:  # named, with why, and nothing of another run shown
                assert seen["run"] is None and seen["absent"][0] == name, (view, seen)
        assert step["histograms"]["file_of"] == (run_id if kind == "mlp" else None)
        assert (step["histograms"]["records"] > 0) == (kind == "mlp")
        attention = step["attention"]
        if kind in SHOWS["attention"]:
            assert attention["maps_of"] == run_id and attention["cells"] > 0, attention  # its own maps
        else:
            assert attention["maps_of"] is None and attention["cells"] == 0, attention
        assert name in step["compression"]["title"]
        for view in ("compare", "scaling_laws"):
            assert step[view]["checked"] == [run_id] and step[view]["names"] == names, (view, step[view])
