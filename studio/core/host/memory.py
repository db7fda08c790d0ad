"""How much memory a run can still have: the machine's (RAM and swap, within the container's limit) and each GPU's,
read without torch, so that a config too big for them is refused before any process starts
(core/estimates/footprint.py). Each figure is None where it cannot be told."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

KIB = 1024
GPU_READ_S = 5.0  # the GPUs' free memory is read again after this long (the settings panel asks on every change)
_gpu_cache: list = [0.0, None]  # (when, figures)


def _meminfo() -> dict[str, int]:
    out = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, _, rest = line.partition(":")
            fields = rest.split()
            if fields and fields[0].isdigit():
                out[key] = int(fields[0]) * KIB
    except OSError:
        pass
    return out


def _cgroup_room() -> int | None:
    """What the container's memory limit still allows (cgroup v2, else v1); None without a limit."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            limit = Path(limit_file).read_text().strip()
            usage = int(Path(usage_file).read_text().strip())
        except (OSError, ValueError):
            continue
        if limit.isdigit() and int(limit) < 1 << 60:  # "max", or v1's "no limit" (a huge number)
            return max(0, int(limit) - usage)
    return None


def available_ram() -> int | None:
    """Bytes a new process can take now: available RAM plus free swap, within the container's limit."""
    info = _meminfo()
    if "MemAvailable" not in info:
        return None
    room = info["MemAvailable"] + info.get("SwapFree", 0)
    limit = _cgroup_room()
    return room if limit is None else min(room, limit)


def gpu_free() -> list[int] | None:
    """Free bytes on each NVIDIA GPU of the machine (NVML where nvidia-ml-py is installed, else ``nvidia-smi``); None
    where neither can tell. Read at most every ``GPU_READ_S`` seconds."""
    if time.monotonic() - _gpu_cache[0] > GPU_READ_S:
        _gpu_cache[:] = [time.monotonic(), _read_gpu_free()]
    return _gpu_cache[1]


def _read_gpu_free() -> list[int] | None:
    try:
        import pynvml
    except ImportError:
        pynvml = None
    if pynvml is not None:
        try:
            pynvml.nvmlInit()
            try:
                return [int(pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(i)).free)
                        for i in range(pynvml.nvmlDeviceGetCount())]
            finally:
                pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001 - no driver, no GPU: ask nvidia-smi
            pass
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=memory.free", "--format=csv,noheader,nounits"], capture_output=True,
                             text=True, timeout=20)
        return [int(float(v)) * KIB * KIB for v in out.stdout.split()] if out.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def visible(free: list[int], visible_devices: str | None) -> list[int]:
    """The figures of the GPUs ``CUDA_VISIBLE_DEVICES`` (by index) lets this process use, in its order."""
    if visible_devices is None:
        return free
    out = []
    for word in visible_devices.split(","):
        word = word.strip()
        if word.isdigit() and int(word) < len(free):
            out.append(free[int(word)])
    return out
