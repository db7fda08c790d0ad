"""What ships recorded (``resources/demos/<name>.npz``): every Teaching-lab demo at its default settings and every
Parallelism-lab page at its form's default request, so a view shows a result the moment it opens.

A demo's settings are its ``DEMOS`` defaults; a lab page's are its request, as the page's form makes it untouched
(tests/gui/test_recorded_lab_pages.py holds each page to the request named here). ``studio demo --record-all DIR``
makes them all (``core/demos/recorder``); ``shipped(name)`` reads one back. Torch-free and Qt-free.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from studio.core.demos.catalog import DEMOS
from studio.core.demos.recording_file import Recording, load
from studio.core.errors import StudioError
from studio.core.host.paths import resource
from studio.core.targets import resolve_target

FOLDER = ("demos",)  # under resources/
DEFAULT_CONFIG = object()  # a LabPage override: the default training settings


def _default_config() -> dict[str, Any]:
    from studio.core.config import RunConfig

    return RunConfig().to_dict()


@dataclass(frozen=True)
class LabPage:
    """A Parallelism-lab page that ships a recording: its ``request`` class (``"module:Class"``, a contract
    dataclass) with the form's defaults where they differ from the class's (``overrides``), and what the badge
    says the recording shows when it is not what Run measures here (``note``)."""

    name: str
    title: str
    request: str
    overrides: tuple[tuple[str, Any], ...] = ()
    note: str = ""

    def default_request(self) -> Any:
        """The request the page's untouched form makes (an override ``DEFAULT_CONFIG``: the default training
        settings, as ``RunConfig().to_dict()``)."""
        values = {k: _default_config() if v is DEFAULT_CONFIG else v for k, v in self.overrides}
        return resolve_target(self.request)(**values)

    def params(self) -> dict[str, Any]:
        """The default request as plain settings (what a recording stores)."""
        return asdict(self.default_request())


LAB_PAGES: tuple[LabPage, ...] = (
    LabPage("parallel_modes", "One model, four ways", "studio.core.contracts.parallel:ParallelRequest"),
    LabPage("data_parallel", "Data-parallel scaling", "studio.core.contracts.scaling:ScaleRequest",
            (("config", DEFAULT_CONFIG),), note="the default training settings"),
    LabPage("parallel_async", "Async SGD", "studio.core.contracts.async_sgd:AsyncRequest",
            (("delays", (0.0, 0.0, 0.05)),)),
    LabPage("parallel_dataload", "Input pipeline", "studio.core.contracts.dataload:DataloadRequest",
            (("dataset", "fashion_mnist_small"), ("persistent", True))),
    LabPage("parallel_schedule", "Scheduling", "studio.core.contracts.schedule:ScheduleRequest",
            note="a synthetic trace of 60 jobs shaped like a production cluster's, not your runs"),
)


def names() -> list[str]:
    """Every recording Studio ships: the demos, then the lab pages."""
    return [e.name for e in DEMOS] + [p.name for p in LAB_PAGES]


def lab_page(name: str) -> LabPage | None:
    return next((p for p in LAB_PAGES if p.name == name), None)


def default_params(name: str) -> dict[str, Any]:
    """The settings ``name`` is recorded with (KeyError for a name that ships no recording)."""
    page = lab_page(name)
    if page is not None:
        return page.params()
    return DEMOS.get(name).defaults()


def path_of(name: str, folder: str | Path | None = None) -> Path:
    return (Path(folder) if folder is not None else resource(*FOLDER)) / f"{name}.npz"


def shipped(name: str) -> Recording | None:
    """The recording Studio ships for ``name``; None when there is none, or it cannot be read (a damaged file must
    not keep the demo from opening: the demo then opens empty, as before)."""
    path = path_of(name)
    if not path.is_file():
        return None
    try:
        return load(path)
    except StudioError:
        return None


def differing_settings(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The settings that differ between a recording and the view's (names, in the recording's order); [] when the
    recording shows exactly what Compute would compute."""
    keys = list(recorded) + [k for k in now if k not in recorded]
    return [k for k in keys if _plain(recorded.get(k)) != _plain(now.get(k))]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
