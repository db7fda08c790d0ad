"""Issue 22, in a real window (Xvfb, Qt's xcb platform, real input from xdotool through the X server):
the wheel over the settings panel scrolls it and changes no setting; the curves' x axis stepped through every
mode keeps the data in view, counted on the screen's pixels. The driver is tests/gui/real_window_driver.py;
set STUDIO_SHOTS=DIR to keep its screenshots."""

from __future__ import annotations

import os

import pytest

from tests.gui.xvfb_support import run_driver, xvfb

DRIVER = "tests.gui.real_window_driver"


def driver(what: str, size: str, tmp_path, theme: str = "light") -> dict:
    shots = os.environ.get("STUDIO_SHOTS")
    with xvfb(size) as display:
        return run_driver(DRIVER, [what, size, *([shots] if shots else [])], display, tmp_path / "home",
                          STUDIO_THEME=theme)


@pytest.mark.parametrize("size", ["1280x800", "1024x768"])
def test_the_wheel_over_the_settings_panel_scrolls_it_and_changes_nothing(tmp_path, size):
    result = driver("wheel", size, tmp_path)
    assert result["scroll_range"] > 0  # the panel is taller than the window: there is something to scroll
    for step in result["steps"]:
        assert step["under_pointer"], step  # the pointer really was over the combo box
        assert step["config_unchanged_after_down"] and step["value_after_down"] == step["value"], step
        assert step["after_down"] > step["start"], step  # the wheel scrolled the panel instead
        assert step["after_up"] < step["after_down"], step
        assert not step["focused"], step  # and did not give the field the focus
    assert result["config_unchanged"]
    assert (result["activation"], result["optimizer"]) == ("relu", "adam")
    clicked = result["focused_epochs"]  # the same real wheel reaches Qt: a field clicked into takes it
    assert clicked["focused"] and clicked["after"] == clicked["before"] + 1, clicked


@pytest.mark.parametrize(("size", "theme"), [("1024x768", "light"), ("1280x800", "dark")])
def test_every_x_axis_mode_shows_the_curves(tmp_path, size, theme):
    result = driver("xaxis", size, tmp_path, theme)
    modes = result["modes"]
    assert [m["mode"] for m in modes] == ["step", "epoch", "samples", "wall", "samples", "epoch", "step"]
    for m in modes:
        (x0, x1), (y0, y1) = m["range"]
        (d0, d1), (e0, e1) = m["bounds"]
        assert x0 <= d0 and d1 <= x1 and d1 - d0 > 0.8 * (x1 - x0), m  # the range is the data's, in its units
        assert y0 <= e0 and e1 <= y1, m
        assert m["curve_pixels"] > 300, m  # the curves are on the screen …
        assert m["columns_spanned"] > 0.7 * m["width"], m  # … across the plot, not squeezed at one edge


def test_a_text_runs_perplexity_plot_goes_when_an_image_run_is_shown(tmp_path):
    result = driver("kinds", "1024x768", tmp_path)
    text, image = result["text"], result["image"]
    assert "perplexity" in text["plots"] and text["scene_plots"] == 5
    assert "perplexity" not in image["plots"] and image["scene_plots"] == 4
    assert image["loss_height"] > 1.2 * text["loss_height"]  # the four plots take the freed room back
