"""A failure has one colour, the theme's (``session/theme.ERROR_COLOURS``, light and dark): no style sheet or HTML
in the GUI writes a red of its own."""

from __future__ import annotations

import re
from pathlib import Path

from studio.gui.session import theme

GUI = Path(__file__).resolve().parents[2] / "studio" / "gui"
STYLED = re.compile(r"(?:color|border|background)[^;'\"{}]*?(#[0-9a-fA-F]{6}\b|\bred\b)", re.IGNORECASE)


def is_red(colour: str) -> bool:
    if colour.lower() == "red":
        return True
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return r >= 0xa0 and g < 0x80 and b < 0x80


def reds_written(path: Path) -> list[str]:
    return [f"{path.name}:{n}: {m.group(1)}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for m in STYLED.finditer(line) if is_red(m.group(1))]


def test_no_view_writes_a_red_of_its_own():
    offenders = [hit for path in sorted(GUI.rglob("*.py")) if path.name != "theme.py" for hit in reds_written(path)]
    assert offenders == []


def test_the_check_sees_a_red(tmp_path: Path):
    sample = tmp_path / "view.py"
    sample.write_text('label.setStyleSheet("color: #d9413b")\nhtml = "<span style=\'color:#D55E00\'>x</span>"\n'
                      'ok = "color: #2e9e44"\nbox.setStyleSheet("QLineEdit { border: 1px solid red; }")\n')
    assert [hit.split(": ")[1] for hit in reds_written(sample)] == ["#d9413b", "#D55E00", "red"]


def test_the_error_colour_follows_the_theme():
    assert set(theme.ERROR_COLOURS) == {"light", "dark"} and theme.error_colour("light") != theme.error_colour("dark")
    assert theme.error_style() == f"color: {theme.error_colour()}"
