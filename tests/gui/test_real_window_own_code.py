"""Your own model in a real window (Xvfb, Qt's xcb platform, real input from xdotool): the shipped example file
opened, the Model form shows its classes and arguments inside the panel at 1280×800 and 1024×768, light and dark,
and a real click and typed digits set the argument. The driver is tests/gui/own_code_window_driver.py; set
STUDIO_SHOTS=DIR to keep its screenshots."""

from __future__ import annotations

import os

import pytest

from tests.gui.xvfb_support import run_driver, xvfb


@pytest.mark.parametrize(("size", "theme"), [("1280x800", "light"), ("1024x768", "light"), ("1280x800", "dark"),
                                             ("1024x768", "dark")])
def test_the_own_model_form_in_a_real_window(tmp_path, size, theme):
    shots = os.environ.get("STUDIO_SHOTS")
    with xvfb(size) as display:
        seen = run_driver("tests.gui.own_code_window_driver", [size, *([shots] if shots else [])], display,
                          tmp_path / "home", timeout=90, STUDIO_THEME=theme)
    assert seen["model"] == "python" and seen["data"] == "python"
    assert seen["classes"] == ["SmallCNN", "make_mlp"]
    assert all(seen["fields_inside"].values()), seen["fields_inside"]
    assert seen["note"].startswith("Two convolution blocks and a linear head.") and seen["note_lines_fit"]
    assert seen["args"] == {"filters": 24}
