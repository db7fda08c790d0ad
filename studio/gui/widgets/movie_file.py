"""Writing frames (RGB arrays) to an animated GIF or an MP4 with real encoders: MP4 (H.264) through PyAV
(FFmpeg's libraries), GIF through Pillow (each frame to its own 256-colour palette as it comes, so a long GIF holds
a byte a pixel until it is written). Both run in this process, so a full disk or a folder that cannot be written is
an ``OSError`` where it happens, not a silent failure in a child encoder. The file appears whole or not at all
(written beside as ``.part``, renamed at the end). Qt-free: the frames come from ``widgets/reel.py``.

MP4 needs the ``record`` extra (``pip install "studio[record]"``: PyAV); without it, ``MovieError`` says so.
"""

from __future__ import annotations

import errno
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from studio.core.errors import StudioError

MOVIES = (".mp4", ".gif")
STILLS = (".png", ".svg")
FORMATS = MOVIES + STILLS


class MovieError(StudioError):
    """A recording that could not be written, in one sentence."""


def check_target(path: str | Path) -> Path:
    """``path`` if Studio can write a recording there: a known format and a folder that exists."""
    path = Path(path).expanduser()
    if path.suffix.lower() not in FORMATS:
        raise MovieError(f"a recording is saved as {', '.join(f[1:].upper() for f in FORMATS)}; "
                         f"{path.name!r} has none of those endings")
    if not path.parent.is_dir():
        raise MovieError(f"the folder {path.parent} does not exist")
    return path


def why_failed(err: OSError, path: Path) -> str:
    """One sentence for a recording that could not be written."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full: {path.name} was not saved; free some space or choose another folder"
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"cannot write to {path.parent}: choose a folder you can write to"
    return f"{path.name} could not be written: {err.strerror or err}"


def encoders_missing(suffix: str = ".mp4") -> str:
    """Why a movie of this kind cannot be written here ("" when it can): MP4 needs PyAV."""
    if suffix.lower() != ".mp4":
        return ""
    try:
        import av  # noqa: F401
    except ImportError:
        return 'recording an MP4 needs PyAV: pip install "studio[record]" (GIF, PNG and SVG work without it)'
    return ""


class MovieWriter:
    """``with MovieWriter(path, fps) as movie: movie.add(rgb)`` for each (H, W, 3) uint8 frame (all one size;
    MP4 wants even sides: an odd one gets a row or column of the last pixels)."""

    def __init__(self, path: str | Path, fps: float) -> None:
        self.path = check_target(path)
        if self.path.suffix.lower() not in MOVIES:
            raise MovieError(f"{self.path.name} is a still, not a movie (GIF or MP4)")
        missing = encoders_missing(self.path.suffix)
        if missing:
            raise MovieError(missing)
        self.fps = max(1.0, min(float(fps), 60.0))
        self.part = self.path.with_name(self.path.name + ".part")
        self.frames = 0
        self.gif = self.path.suffix.lower() == ".gif"
        self._images: list[Any] = []  # a GIF's frames, palettised
        self._container: Any = None
        self._stream: Any = None

    def __enter__(self) -> MovieWriter:
        try:
            if self.gif:
                self.part.write_bytes(b"")  # a folder that cannot be written says so now, not after every frame
            else:
                import av

                self._container = av.open(str(self.part), mode="w", format="mp4")
        except OSError as err:
            self._discard()
            raise MovieError(why_failed(err, self.path)) from None
        return self

    def add(self, rgb: np.ndarray) -> None:
        frame = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        try:
            if self.gif:
                from PIL import Image

                self._images.append(Image.fromarray(frame, "RGB").quantize(colors=255, dither=Image.Dither.NONE))
            else:
                self._add_video(frame)
        except OSError as err:
            self._discard()
            raise MovieError(why_failed(err, self.path)) from None
        self.frames += 1

    def _add_video(self, frame: np.ndarray) -> None:
        import av

        h, w = frame.shape[:2]
        frame = np.pad(frame, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
        if self._stream is None:
            from fractions import Fraction

            self._stream = self._container.add_stream("libx264", rate=Fraction(self.fps).limit_denominator(1000))
            self._stream.width, self._stream.height = frame.shape[1], frame.shape[0]
            self._stream.pix_fmt = "yuv420p"
            self._stream.options = {"crf": "20"}
        self._container.mux(self._stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")))

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is not None:
            self._discard()
            return
        try:
            if not self.frames:
                raise MovieError("there was nothing to record")
            if self.gif:
                first, *rest = self._images
                with open(self.part, "wb") as fh:
                    first.save(fh, format="GIF", save_all=True, append_images=rest, duration=round(1000 / self.fps),
                               loop=0)
                self._images = []
            else:
                if self._stream is not None:
                    self._container.mux(self._stream.encode())
                self._container.close()
                self._container = None
            self.part.replace(self.path)
        except OSError as err:
            self._discard()
            raise MovieError(why_failed(err, self.path)) from None
        except MovieError:
            self._discard()
            raise

    def _discard(self) -> None:
        """Nothing half-written stays behind."""
        container, self._container, self._stream, self._images = self._container, None, None, []
        if container is not None:
            try:
                container.close()
            except Exception:  # noqa: BLE001, S110 - closing a writer that already failed
                pass
        self.part.unlink(missing_ok=True)
