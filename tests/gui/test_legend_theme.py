"""The demos' legends stay readable when the theme changes under them (issue 21 point 4: white text on a light
grey fill in the dark theme): the label's pixels against the legend's own background, by WCAG contrast."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from studio.gui.demos.regularisation_view import RegularisationView
from studio.gui.session import theme


class NoJobs:
    """A session the view never asks for a job here."""


def luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2]


def label_contrast(view: RegularisationView) -> float:
    """WCAG contrast of the first legend label's most distinct pixel against the most common one (the fill)."""
    legend = view.panels[0].plot.legend
    _sample, label = legend.items[0]
    rect: QRect = view.graphics.mapFromScene(label.sceneBoundingRect()).boundingRect()
    image = view.graphics.grab(rect).toImage().convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8).reshape(height, image.bytesPerLine())[:, : width * 4]
    rgb = data.reshape(height, width, 4)[..., 2::-1].reshape(-1, 3).astype(float)  # BGRA → RGB
    colours, counts = np.unique(rgb, axis=0, return_counts=True)
    fill = luminance(colours[counts.argmax()][None])[0]
    lum = luminance(rgb)
    text = lum.max() if abs(lum.max() - fill) > abs(lum.min() - fill) else lum.min()
    hi, lo = max(fill, text), min(fill, text)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture
def view(qtbot):
    app = QApplication.instance()
    theme.apply("light", app)
    v = RegularisationView(NoJobs())
    qtbot.addWidget(v)
    v.resize(900, 600)
    for panel in v.panels:
        panel.set_data(np.arange(10.0), np.linspace(1, 0.2, 10), np.linspace(1, 0.5, 10))
    v.empty.hide_hint()
    v.show()
    qtbot.wait(50)  # Qt lays out and paints on the next turns of its event loop
    yield v
    theme.apply("light", app)


@pytest.mark.parametrize("mode", ["normal", "presentation"])
def test_legend_labels_are_readable_after_switching_to_the_dark_theme(qtbot, view, mode):
    if mode == "presentation":
        view.set_presentation(True)
    assert label_contrast(view) >= 4.5  # light theme, as built
    theme.apply("dark", QApplication.instance())
    view.theme_changed()  # what MainWindow.apply_theme does after theme.apply (test below)
    qtbot.wait(50)  # restyled at once; Qt repaints on the next turns of its event loop
    assert label_contrast(view) >= 4.5
    fill = view.panels[0].plot.legend.brush().color()
    if mode == "presentation":  # the projector's black on white survives a theme change
        assert fill.lightness() > 200 and view.graphics.backgroundBrush().color().lightness() > 200
    else:
        assert fill.lightness() < 80
    view.set_presentation(mode == "normal")
    assert label_contrast(view) >= 4.5
    view.set_presentation(False)
    assert label_contrast(view) >= 4.5


def test_the_window_restyles_the_teaching_lab_views_after_a_theme_change(qtbot, window):
    """MainWindow.apply_theme reaches every built demo view once the plots are restyled (their own style)."""
    lab = window.pages.tab("teaching_lab")
    view = lab.open("regularisation")
    calls: list[str] = []
    view.theme_changed = lambda: calls.append("restyled")  # type: ignore[method-assign]
    window.themes.apply("dark", save=False)
    window.themes.apply("light", save=False)
    assert calls == ["restyled", "restyled"]


def test_a_theme_change_skips_a_tracked_window_whose_qt_object_is_gone_and_untracked_top_levels(qtbot):
    """theme.apply walks only the windows that asked (``theme.track``), and only while their C++ object lives:
    walking every top-level widget crashed Qt in CI when one was freed during the loop."""
    import pyqtgraph as pg
    import shiboken6
    from PySide6.QtWidgets import QApplication

    gone = pg.PlotWidget()
    theme.track(gone)
    gone.show()
    shiboken6.delete(gone)  # the Python wrapper lives on (held here), its Qt object does not
    stray = pg.PlotWidget()  # a shown top-level nobody tracked
    qtbot.addWidget(stray)
    stray.show()
    before = stray.backgroundBrush().color().name()
    mine = pg.PlotWidget()
    qtbot.addWidget(mine)
    theme.track(mine)
    mine.show()
    try:
        theme.apply("dark", QApplication.instance())  # no crash on the freed one
        assert mine.backgroundBrush().color().name() == theme.PLOT_COLOURS["dark"].background.lower()
        assert stray.backgroundBrush().color().name() == before  # not walked
    finally:
        theme.apply("light", QApplication.instance())
