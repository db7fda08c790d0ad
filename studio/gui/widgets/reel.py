"""Recording a view for slides: a :class:`Reel` says how many frames it has and shows one; ``record`` lays its
widget out at the chosen size off screen, draws every frame (at most ``MAX_FRAMES``, evenly picked, the last one
always), with its caption above, and writes an animated GIF or MP4 (``movie_file.py``) or a PNG or SVG still of
the last frame. Reels: a demo (``gui/demos/demo_reel.py``), the training curves (``gui/plots/curves_reel.py``), a
landscape's trajectory (``gui/plots/trajectory_reel.py``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtWidgets import QWidget

from studio.gui.widgets.movie_file import MOVIES, MovieError, MovieWriter, check_target, why_failed

MAX_FRAMES = 240
SIZES = ((1280, 720), (1920, 1080), (1024, 768), (800, 600), (640, 480))  # 16:9 slides first, then 4:3
CAPTION_SHARE = 0.07  # of the height, for the caption line above the plots


class Reel(Protocol):
    """What can be recorded: ``widget`` (laid out at the recording's size; off screen, not the one on screen),
    ``count()`` frames, ``show(i)`` draws frame i, ``caption()`` the line above it, ``rate`` frames a second."""

    widget: QWidget
    rate: float

    def count(self) -> int: ...

    def show(self, index: int) -> None: ...

    def caption(self) -> str: ...


@dataclass
class Recorded:
    path: Path
    frames: int
    size: tuple[int, int]


def frame_indices(count: int, limit: int = MAX_FRAMES) -> list[int]:
    """At most ``limit`` frame indices of ``count``, evenly spread, first and last included."""
    if count <= limit:
        return list(range(count))
    return sorted({int(round(i)) for i in np.linspace(0, count - 1, limit)})


def parse_size(text: str) -> tuple[int, int]:
    """"1280x720" → (1280, 720); MovieError in one sentence otherwise (16 to 4096 pixels a side)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise MovieError(f"a size is width x height in pixels, e.g. 1280x720; got {text!r}") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise MovieError(f"a recording is 16 to 4096 pixels a side; got {w}x{h}")
    return w, h


def lay_out(reel: Reel, size: tuple[int, int]) -> int:
    """Size the reel's widget for a recording of ``size`` (the caption band above it); the band's height."""
    w, h = size
    band = max(18, int(h * CAPTION_SHARE)) if reel.caption() else 0
    widget = reel.widget
    if widget.size() != QSize(w, h - band):
        widget.resize(w, h - band)
        layout = widget.layout()
        if layout is not None:
            layout.activate()
    QCoreApplication.processEvents()
    return band


def paint(reel: Reel, painter: QPainter, size: tuple[int, int]) -> None:
    """The reel's current frame at ``size`` on ``painter``: its caption on a band at the top, the widget below."""
    band = lay_out(reel, size)
    w, h = size
    widget = reel.widget
    painter.fillRect(QRect(0, 0, w, h), QColor(widget.palette().window().color()))
    if band:
        font = QFont(widget.font())
        font.setPixelSize(max(10, int(band * 0.55)))
        painter.setFont(font)
        painter.setPen(widget.palette().windowText().color())
        text = painter.fontMetrics().elidedText(reel.caption(), Qt.TextElideMode.ElideRight, w - 16)
        painter.drawText(QRect(8, 0, w - 16, band), int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                         text)
    QWidget.render(widget, painter, QPoint(0, band))  # the widget as painted (a graphics view overrides render)


def render(reel: Reel, size: tuple[int, int]) -> QImage:
    """The reel's current frame as an image of ``size``."""
    image = QImage(size[0], size[1], QImage.Format.Format_RGB888)
    painter = QPainter(image)
    try:
        paint(reel, painter, size)
    finally:
        painter.end()
    return image


def rgb(image: QImage) -> np.ndarray:
    """A QImage as an (H, W, 3) uint8 array."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, line = image.width(), image.height(), image.bytesPerLine()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=line * h).reshape(h, line)
    return data[:, : w * 3].reshape(h, w, 3).copy()


def record(reel: Reel, path: str | Path, size: tuple[int, int] = SIZES[0], fps: float | None = None,
           step: Callable[[int, int], bool] | None = None) -> Recorded:
    """Write ``reel`` to ``path``: its frames as a GIF or MP4, or its last frame as a PNG or SVG still.
    ``step(done, total)`` is told after each frame and may return False to stop (nothing is written then).
    MovieError in one sentence when it cannot be written (a full disk, a folder without write access)."""
    path = check_target(path)
    count = reel.count()
    if count < 1:
        raise MovieError("there is nothing to record yet: compute or open something first")
    suffix = path.suffix.lower()
    if suffix not in MOVIES:
        reel.show(count - 1)
        _still(reel, path, size)
        return Recorded(path, 1, size)
    indices = frame_indices(count)
    rate = fps or min(max(reel.rate, 1.0), 30.0)
    if len(indices) < count:  # fewer frames than the demo has: keep its pace
        rate = max(1.0, rate * len(indices) / count)
    with MovieWriter(path, rate) as movie:
        for done, index in enumerate(indices, 1):
            reel.show(index)
            movie.add(rgb(render(reel, size)))
            if step is not None and not step(done, len(indices)):
                raise MovieError("the recording was stopped; nothing was saved")
    return Recorded(path, len(indices), size)


def _still(reel: Reel, path: Path, size: tuple[int, int]) -> None:
    part = path.with_name(path.name + ".part")
    try:
        if path.suffix.lower() == ".svg":
            _svg(reel, part, size)
        else:
            image = render(reel, size)
            with open(part, "wb") as fh:  # Python's file: a full disk is an OSError, not Qt's False
                fh.write(_png_bytes(image))
        part.replace(path)
    except OSError as err:
        raise MovieError(why_failed(err, path)) from None
    finally:
        part.unlink(missing_ok=True)


def _png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # QIODevice is accepted; the stubs miss it
    buffer.close()
    return bytes(data.data())


def _svg(reel: Reel, part: Path, size: tuple[int, int]) -> None:
    """A vector still: the caption and the widget painted into an SVG (text stays text, lines stay lines)."""
    from PySide6.QtSvg import QSvgGenerator

    lay_out(reel, size)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(*size))
    generator.setViewBox(QRect(0, 0, *size))
    generator.setTitle(reel.caption() or "Studio")
    painter = QPainter(generator)
    try:
        paint(reel, painter, size)
    finally:
        painter.end()
    buffer.close()
    with open(part, "wb") as fh:
        fh.write(bytes(data.data()))
