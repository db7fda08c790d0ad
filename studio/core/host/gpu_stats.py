"""Per-GPU utilisation and memory from NVML (the package ``nvidia-ml-py``, module ``pynvml``; the optional extra
``studio[gpu]``), imported lazily. Read by the hardware panel while training and sampled during the input-pipeline
sweep. Without the package or a GPU driver, :func:`open_nvml` returns the reason in words instead of a reader.
Pure Python: no torch, no Qt."""

from __future__ import annotations

import threading
from typing import Any

from studio.core.contracts.dataload import GpuSample

MB = 1024 * 1024


class Nvml:
    """An initialised NVML (``module``: ``pynvml`` or a stand-in with its functions) and its GPU handles."""

    def __init__(self, module: Any) -> None:
        self.nv = module
        self.nv.nvmlInit()
        count = int(self.nv.nvmlDeviceGetCount())
        self.handles = [self.nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        self.names = [_text(self.nv.nvmlDeviceGetName(h)) for h in self.handles]

    def sample(self) -> list[GpuSample]:
        """Every GPU's utilisation (% of the last sample period with a kernel running) and memory now."""
        out: list[GpuSample] = []
        for i, (handle, name) in enumerate(zip(self.handles, self.names, strict=True)):
            util = self.nv.nvmlDeviceGetUtilizationRates(handle)
            mem = self.nv.nvmlDeviceGetMemoryInfo(handle)
            out.append({"index": i, "name": name, "util": float(util.gpu), "memory_used_mb": mem.used / MB,
                        "memory_total_mb": mem.total / MB})
        return out

    def close(self) -> None:
        try:
            self.nv.nvmlShutdown()
        except Exception:  # noqa: BLE001 - shutting down a library that is going away anyway
            pass


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def open_nvml(module: Any = None) -> Nvml | str:
    """A reader of every GPU, or why there is none ("nvidia-ml-py is not installed …", "NVML could not start …",
    "no NVIDIA GPU"). ``module``: a stand-in for ``pynvml`` (tests, where no GPU is reachable)."""
    if module is None:
        try:
            import pynvml
        except ImportError:
            return "GPU utilisation is not measured: nvidia-ml-py is not installed (pip install 'studio[gpu]')"
        module = pynvml
    try:
        reader = Nvml(module)
    except Exception as err:  # noqa: BLE001 - NVMLError_LibraryNotFound, _DriverNotLoaded, …: said in words
        return f"GPU utilisation is not measured: NVML could not start ({type(err).__name__}: {err})"
    if not reader.handles:
        reader.close()
        return "GPU utilisation is not measured: NVML sees no NVIDIA GPU"
    return reader


def format_sample(samples: list[GpuSample]) -> str:
    """One line per GPU: "GPU 0 NVIDIA H100: 87 % busy, 12.3 of 79.6 GB"."""
    return "\n".join(f"GPU {s['index']} {s['name']}: {s['util']:.0f} % busy, {s['memory_used_mb'] / 1024:.1f} of "
                     f"{s['memory_total_mb'] / 1024:.1f} GB" for s in samples)


class Sampler:
    """Samples a reader every ``every_s`` seconds on a thread between :meth:`start` and :meth:`stop`; ``stop``
    returns (mean utilisation over the GPUs and samples in %, the most memory in use in MB), (None, None) when
    nothing was sampled."""

    def __init__(self, reader: Nvml, every_s: float = 0.1) -> None:
        self.reader, self.every_s = reader, every_s
        self._utils: list[float] = []
        self._memory: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Sampler:
        self._utils, self._memory = [], []
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="nvml-sampler", daemon=True)
        self._thread.start()
        return self

    def _take(self) -> None:
        samples = self.reader.sample()
        if samples:
            self._utils.append(sum(s["util"] for s in samples) / len(samples))
            self._memory.append(sum(s["memory_used_mb"] for s in samples))

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._take()
            except Exception:  # noqa: BLE001 - a failed read is a missing sample, not a failed sweep
                pass
            self._stop.wait(self.every_s)

    def stop(self) -> tuple[float | None, float | None]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if not self._utils:
            return None, None
        return sum(self._utils) / len(self._utils), max(self._memory)

