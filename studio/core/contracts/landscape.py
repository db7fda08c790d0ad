"""The landscape and sharpness contract: what the GUI, the CLI and the engine agree on, stated once.

A request (``LandscapeRequest``, ``SharpnessRequest``: frozen, validated with a sentence a person can act on),
the frames a live landscape sends while it is computed coarse-to-fine (``PreviewFrame``, ``RowsFrame``) and the
results (``LandscapeResult``, ``SharpnessResult``). The GUI's spin boxes and the CLI's help take their ranges
from the constants below; ``engine/tasks/landscape.py`` validates every request before it loads anything.

Torch-free and Qt-free (the GUI and the CLI's parser import it).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from studio.core.errors import ConfigError
from studio.core.vocab import LANDSCAPE_KINDS, SPLITS, LandscapeKind

# The landscape kinds and the data splits a landscape or sharpness is measured on: the vocabulary's
KINDS: tuple[str, ...] = LANDSCAPE_KINDS
METHODS: tuple[str, ...] = ("lanczos", "power")  # sharpness: how the top Hessian eigenvalues are found

# Points per axis. The engine's limits (the GUI offered 3–301, the CLI none): 2 is the least grid that has two
# ends (a 1-D interpolation α = 0 and α = 1; a 2-D corner check), and 501² ≈ 250,000 evaluations is about the
# most that finishes in hours on a CPU; both are honest limits of the maths, not of a widget.
RESOLUTION_MIN = 2
RESOLUTION_MAX = 501
DEFAULT_RESOLUTION = 41  # 41 × 41 in Li et al. 2018
# Examples evaluated at each point: a seeded subset, 0 = the whole split (so no larger number is ever needed
# to mean "all"; the cap keeps one point's batch within memory).
SAMPLES_MIN = 0
SAMPLES_MAX = 1_000_000
DEFAULT_SAMPLES = 2000
PREVIEW_SAMPLES = 500  # the coarse preview's samples: its shape in ~¼ the time of 2,000 (docs/developer/benchmarks.md)
# 2-D: the grid covers [-span, span]² in units of the filter-normalised directions (1 in Li et al.).
SPAN_MIN = 0.01
SPAN_MAX = 100.0
DEFAULT_SPAN = 1.0
# Sharpness. k: top Hessian eigenvalues (Lanczos beyond a few dozen is slow and says nothing more about
# sharpness); trace_samples: Hutchinson probes; eps: the half-width of Keskar's box (relative, above 0).
K_MIN, K_MAX, DEFAULT_K = 1, 100, 3
TRACE_SAMPLES_MIN, TRACE_SAMPLES_MAX, DEFAULT_TRACE_SAMPLES = 1, 100_000, 64
DEFAULT_SHARPNESS_SAMPLES = 1000
DEFAULT_EPS = 1e-3
THREADS_MIN = 0  # CPU threads of the job; 0: the thread policy (core/host/threads.py) decides


def _in_range(name: str, value: float, lo: float, hi: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise ConfigError(f"{name} must be {what} from {lo:g} to {hi:g}; got {value!r}")


def _one_of(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")


def _from_options(cls: type, options: dict[str, Any], what: str) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise ConfigError(f"unknown {what} option(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    return cls(**options)


@dataclass(frozen=True)
class LandscapeRequest:
    """A 1-D, 2-D or trajectory landscape of one run (the run itself is the job's, not the request's).

    ``resolution`` None: ``DEFAULT_RESOLUTION``. ``checkpoint``: final (None), initial, a step or a .pt file.
    ``other_run`` (1-D): interpolate to that run's final weights. ``span`` (2-D): the grid's half-width.
    ``fast``: the vmapped evaluator (else one point at a time). ``preview_samples``: samples of a live
    landscape's coarse preview (0: all). ``threads``: the job's CPU threads (0: the thread policy).
    """

    kind: str = LandscapeKind.SURFACE
    resolution: int | None = None
    checkpoint: str | None = None
    other_run: str | None = None
    samples: int = DEFAULT_SAMPLES
    split: str = "train"
    span: float = DEFAULT_SPAN
    seed: int = 0
    include_bias_bn: bool = False
    device: str = "auto"
    fast: bool = True
    preview_samples: int = PREVIEW_SAMPLES
    threads: int = 0

    @property
    def points(self) -> int:
        """Points per axis (the default when ``resolution`` is None)."""
        return self.resolution or DEFAULT_RESOLUTION

    def validate(self) -> LandscapeRequest:
        """Raise ConfigError with a sentence a person can act on; return self when the request is sound."""
        _one_of("landscape kind", self.kind, KINDS)
        _one_of("data split", self.split, SPLITS)
        if self.resolution is not None:
            _in_range("the resolution", self.resolution, RESOLUTION_MIN, RESOLUTION_MAX,
                      "a whole number of points per axis")
            if not isinstance(self.resolution, int):
                raise ConfigError(f"the resolution must be a whole number of points per axis; got {self.resolution!r}")
        _in_range("samples", self.samples, SAMPLES_MIN, SAMPLES_MAX, "a count of examples (0: the whole split)")
        _in_range("preview_samples", self.preview_samples, SAMPLES_MIN, SAMPLES_MAX,
                  "a count of examples (0: all of the samples)")
        if not math.isfinite(self.span):
            raise ConfigError(f"the span must be a number from {SPAN_MIN:g} to {SPAN_MAX:g}; got {self.span!r}")
        _in_range("the span", self.span, SPAN_MIN, SPAN_MAX, "a number")
        if self.threads < THREADS_MIN:
            raise ConfigError("threads must be 0 (let Studio choose) or more")
        return self

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> LandscapeRequest:
        """A request from keyword options (``compute_landscape``'s names); unknown names are an error."""
        return _from_options(cls, options, "landscape")

    def options(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class SharpnessRequest:
    """Top-``k`` Hessian eigenvalues, Hutchinson's trace (``trace_samples`` probes) and Keskar's ε-sharpness
    (box ``eps``, ``eps_steps`` ascent steps) at ``checkpoint``, on ``samples`` examples of ``split``."""

    checkpoint: str | None = None
    k: int = DEFAULT_K
    samples: int = DEFAULT_SHARPNESS_SAMPLES
    split: str = "train"
    trace_samples: int = DEFAULT_TRACE_SAMPLES
    eps: float = DEFAULT_EPS
    eps_steps: int = 10
    seed: int = 0
    device: str = "auto"
    method: str = "lanczos"
    threads: int = 0

    def validate(self) -> SharpnessRequest:
        """Raise ConfigError with a sentence a person can act on; return self when the request is sound."""
        _one_of("eigenvalue method", self.method, METHODS)
        _one_of("data split", self.split, SPLITS)
        _in_range("k", self.k, K_MIN, K_MAX, "a whole number of eigenvalues")
        _in_range("trace_samples", self.trace_samples, TRACE_SAMPLES_MIN, TRACE_SAMPLES_MAX,
                  "a whole number of Hutchinson probes")
        _in_range("samples", self.samples, SAMPLES_MIN, SAMPLES_MAX, "a count of examples (0: the whole split)")
        if not (isinstance(self.eps, int | float) and math.isfinite(self.eps) and self.eps > 0):
            raise ConfigError(f"eps (the ε-sharpness box) must be a number above 0, e.g. 1e-3; got {self.eps!r}")
        if self.eps_steps < 1:
            raise ConfigError("eps_steps must be at least 1")
        if self.threads < THREADS_MIN:
            raise ConfigError("threads must be 0 (let Studio choose) or more")
        return self

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> SharpnessRequest:
        """A request from keyword options (``compute_sharpness``'s names); unknown names are an error."""
        return _from_options(cls, options, "sharpness")

    def options(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class LandscapeJobRequest:
    """A landscape of the run in ``run_dir``, as a background job (``engine/tasks/landscape_job.run_landscape``):
    the request travels to the child as it is."""

    run_dir: str
    request: LandscapeRequest = field(default_factory=LandscapeRequest)


@dataclass(frozen=True)
class SharpnessJobRequest:
    """The sharpness of the run in ``run_dir``, as a background job (``engine/tasks/landscape_job.run_sharpness``)."""

    run_dir: str
    request: SharpnessRequest = field(default_factory=SharpnessRequest)


# --- what a live landscape sends (job frames; arrays are numpy) ---------------------------------------------
class _FrameBase(TypedDict):
    xs: Any  # (len(xs),) coordinates along the first direction
    ys: Any  # (len(ys),) along the second
    loss: Any  # (len(ys), len(xs))
    acc: Any
    split: str
    kind: str  # "2d" or "trajectory"
    path: NotRequired[Any]  # trajectory: the projected optimizer path (T, 2)
    explained_variance: NotRequired[list[float]]  # trajectory: of the two PCA directions


class PreviewFrame(_FrameBase):
    """The coarse grid, first (on ``samples`` of the examples)."""

    stage: Literal["preview"]
    samples: int


class RowsFrame(_FrameBase):
    """The full grid after each block of rows: rows below ``rows_done`` computed, the rest the upsampled preview."""

    stage: Literal["refine"]
    rows_done: int
    rows: int


LandscapeFrame = PreviewFrame | RowsFrame
FRAME_STAGES: tuple[str, ...] = ("preview", "refine")


# --- results ------------------------------------------------------------------------------------------------
class LandscapeStats(TypedDict):
    """``Landscape.summary``: the kind, points per axis and the loss at the centre, its least and its most."""

    kind: str
    resolution: int
    center_loss: float
    min_loss: float
    max_loss: float


class LandscapeSummary(LandscapeStats):
    seconds: float


class LandscapeReport(LandscapeStats):
    """``studio landscape --json``: the saved file, the stats, the seconds and the run (a trajectory: the
    explained variance of its two directions; ``--record``: the recording written)."""

    path: str
    seconds: float
    run_id: str
    explained_variance: NotRequired[list[float]]
    recorded: NotRequired[str]  # --record: the MP4, GIF, PNG or SVG written


class LandscapeResult(TypedDict):
    """A landscape job's result: the saved .npz and its summary."""

    path: str
    summary: LandscapeSummary


class SharpnessJobResult(TypedDict):
    """A sharpness job's result: the saved JSON's path ("" when not saved) and the measurement."""

    path: str
    summary: SharpnessResult


class SharpnessResult(TypedDict):
    """``compute_sharpness``'s result (also the sharpness job's ``summary``)."""

    run_id: str
    checkpoint: str
    step: int | None
    top_eigenvalues: list[float]
    trace: float
    trace_stderr: float
    eps_sharpness: float
    eps: float
    loss: float
    split: str
    samples: int
    method: str
    batch_norm: str
    device: str
    seconds: float
    path: NotRequired[str]
