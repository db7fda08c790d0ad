"""A demo first opened in presentation mode gets the explanation column presentation gives (30 % of the window),
not the 300 px of a view sized before it had a window: its Compute/Stop/Paper check row was clipped."""

import pytest

from studio.gui.demos.lab import TeachingLab


@pytest.fixture
def lab(qtbot):
    tab = TeachingLab(None)
    tab.resize(1920, 1080)
    qtbot.addWidget(tab)
    tab.show()
    return tab


def test_a_view_opened_in_presentation_mode_sizes_its_columns_from_the_window(qtbot, lab):
    lab.set_presentation(True)
    view = lab.open("edge_of_stability")  # never opened before: built now, in presentation mode
    qtbot.wait(50)  # Qt lays out and paints on the next turns of its event loop
    side, _centre = view.splitter.sizes()
    assert side >= int(0.3 * 1920) - 10
    for button in (view.compute_button, view.check_panel.run_button):
        assert button.width() >= button.sizeHint().width()  # the whole label shows
