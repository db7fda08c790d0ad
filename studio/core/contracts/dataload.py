"""The input pipeline made measurable (``studio dataload``, the Parallelism lab's "Input pipeline" page): a
``torch.utils.data.DataLoader`` that decodes image files per item, swept over worker counts (pin_memory and
persistent workers on and off), beside Studio's device-resident path (decode once into one uint8 tensor, a batch
is an index gather). Each training step is timed in two parts: waiting for data (``next(loader)`` and the copy
to the device) and compute (forward, backward, optimizer step). Torch-free: the request, its limits and the
result's shape, shared by the engine, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

from studio.core.errors import ConfigError
from studio.core.numbers.ints import split_ints

MAX_WORKERS = 64
MAX_SIDE = 64  # images are resized to their most common size, scaled to fit this (the model's input)
DEFAULT_LIMIT = 10_000  # images used at most (a seeded random subset of a bigger folder)
DATASET_IMAGES = 2_000  # images written as PNG files for a dataset that has no image folder
# a small model by default, so a step's compute is real but does not hide the data loading; other models of
# the registry (``studio list models``) use their own defaults
SMALL_PARAMS: dict[str, dict[str, Any]] = {"mlp": {"widths": [128]}, "cnn": {"filters": [16, 32], "dense": 64}}


@dataclass(frozen=True)
class DataloadRequest:
    """Sweep ``workers`` ("0,1,2,4") over the image files of ``folder`` (class subfolders) or of the dataset
    ``dataset``; ``pin_memory`` adds pinned-memory rows (CUDA only), ``persistent`` adds persistent-worker rows
    (worker counts above 0). Each configuration trains ``model`` for ``steps`` steps over ``epochs`` epochs
    (``seconds`` > 0 caps each configuration's time), so epoch starts are measured too."""

    folder: str = ""
    dataset: str = ""
    workers: str = "0,1,2,4"
    pin_memory: bool = False
    persistent: bool = False
    batch_size: int = 64
    prefetch_factor: int = 2
    steps: int = 60
    epochs: int = 2
    seconds: float = 0.0
    model: str = "mlp"
    model_params: dict[str, Any] | None = None  # None: SMALL_PARAMS for the model, else its registry defaults
    size: tuple[int, int] | None = None  # (height, width) the images are resized to; None: chosen from the files
    limit: int = DEFAULT_LIMIT
    device: str = "auto"  # auto | cpu | cuda
    threads: int = 1  # torch threads of the training process on the CPU (workers take the other cores)
    device_resident: bool = True
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # knobs for checks and tests (``slow_item_s``)
    data_params: dict[str, Any] | None = None  # a dataset read by a DataLoader (python, hf_disk): its settings

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_params if self.model_params is not None else SMALL_PARAMS.get(self.model, {}))


def parse_workers(text: str | int | tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Worker counts from "0,1,2,4" (sorted, without repeats); one sentence when they are not counts."""
    try:
        values = split_ints(text)
    except ValueError:
        raise ConfigError(f"--workers takes whole numbers separated by commas, e.g. 0,1,2,4 (not {text!r})") from None
    if not values:
        raise ConfigError("--workers needs at least one worker count, e.g. 0,1,2,4")
    if any(v < 0 or v > MAX_WORKERS for v in values):
        raise ConfigError(f"a worker count is from 0 (load in the training process) to {MAX_WORKERS}; "
                          f"{text!r} is outside that")
    return tuple(sorted(set(values)))


def validate(request: DataloadRequest) -> DataloadRequest:
    """The request with its worker counts checked; a ConfigError (one sentence) for anything out of range."""
    parse_workers(request.workers)
    if bool(request.folder) == bool(request.dataset):
        raise ConfigError("name either a folder of images or a dataset (--dataset NAME), not both and not neither")
    if not 1 <= request.batch_size <= 4096:
        raise ConfigError(f"the batch size is from 1 to 4096, not {request.batch_size}")
    if not 1 <= request.epochs <= 100:
        raise ConfigError(f"epochs per configuration are from 1 to 100, not {request.epochs}")
    if not 2 * request.epochs <= request.steps <= 100_000:
        raise ConfigError(f"--steps must be at least 2 per epoch ({2 * request.epochs} for {request.epochs} epochs) "
                          f"and at most 100,000; it is {request.steps}")
    if not 1 <= request.prefetch_factor <= 64:
        raise ConfigError(f"the prefetch factor (batches each worker loads ahead) is from 1 to 64, not "
                          f"{request.prefetch_factor}")
    if request.seconds < 0:
        raise ConfigError("--seconds is a time per configuration: 0 (no cap) or more")
    if request.limit < 1:
        raise ConfigError("--limit is the number of images to use, at least 1")
    if request.device not in ("auto", "cpu", "cuda"):
        raise ConfigError(f"the device is auto, cpu or cuda, not {request.device!r}")
    if request.size is not None and not all(1 <= s <= 1024 for s in request.size):
        raise ConfigError(f"an image size is 1 to 1024 pixels a side, not {request.size[0]}×{request.size[1]}")
    if not 1 <= request.threads <= 256:
        raise ConfigError(f"threads of the training process are from 1 to 256, not {request.threads}")
    return replace(request, workers=",".join(str(w) for w in parse_workers(request.workers)))


class ConfigRow(TypedDict):
    """One measured configuration; ``kind`` "loader" (a DataLoader) or "device" (Studio's device-resident path:
    ``workers`` 0, ``pin_memory``/``persistent`` None)."""

    kind: str
    label: str  # "2 workers, persistent", "device-resident"
    workers: int
    pin_memory: bool | None  # None: not meaningful here (the CPU; the device-resident path)
    persistent: bool | None  # None: no workers to keep
    steps: int
    samples_per_s: float
    step_ms: float  # wait_ms + compute_ms, per step
    wait_ms: float  # waiting for data per step (every step, epoch starts included)
    compute_ms: float  # forward, backward and optimizer step
    wait_share: float  # wait_ms / step_ms
    epoch_start_ms: float  # the first batch of an epoch after the first (workers started again, or not)
    first_batch_ms: float  # the first batch of the first epoch
    speedup: float  # samples/s against the first DataLoader row (workers 0 when measured)
    cpu_cores: float  # CPU seconds per second of the configuration, its workers included: the cores it got
    gpu_util: float | None  # mean GPU utilisation in % during the configuration (NVML), None: not sampled
    gpu_memory_mb: float | None  # the most GPU memory in use meanwhile (NVML)


class GpuSample(TypedDict):
    """One GPU as NVML sees it."""

    index: int
    name: str
    util: float  # %
    memory_used_mb: float
    memory_total_mb: float


class DataloadResult(TypedDict):
    rows: list[ConfigRow]
    verdict: str  # plain words: the share of each step spent waiting for data, and what to do
    bottleneck: bool  # the loader's first configuration waited at least ``core/data_stalls.BOTTLENECK``
    folder: str
    images: int  # decodable images used
    skipped: int  # files that could not be decoded (left out)
    skipped_examples: list[str]
    classes: int
    shape: list[int]  # [C, H, W] the model sees
    model: str
    batch_size: int
    steps: int
    epochs: int
    device: str
    cores: int
    threads: int
    start_method: str  # how DataLoader workers start (fork, spawn, forkserver)
    preload_s: float  # the device-resident path's one-off decode of every image
    decode_ms: float  # decoding one image in the training process (the per-item cost of the loader)
    pin_memory: str  # "measured", "off", or why not ("n/a on CPU")
    gpu: str  # "" when NVML sampled the GPUs, else why it did not
    notes: list[str]
