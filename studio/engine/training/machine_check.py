"""What the machine has, checked before a run is created or a process started (torch-free: the GUI
calls it). A config that asks for more CPU processes than cores, or for CUDA where no GPU is visible,
is refused here with one line, instead of spawning processes that fail one by one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from studio.core.config import RunConfig
from studio.core.errors import ConfigError


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def visible_gpus() -> int | None:
    """NVIDIA GPUs this process may use (driver's list ∩ CUDA_VISIBLE_DEVICES); None where it cannot be
    told without loading CUDA (not Linux, or a ROCm machine)."""
    if not sys.platform.startswith("linux") or Path("/dev/kfd").exists():
        return None
    gpus_dir = Path("/proc/driver/nvidia/gpus")
    count = len(list(gpus_dir.iterdir())) if gpus_dir.is_dir() else 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        wanted = [v for v in visible.split(",") if v.strip() and v.strip() != "-1"]
        count = min(count, len(wanted))
    return count


def check_machine(cfg: RunConfig) -> None:
    """Raise ConfigError when this machine cannot run ``cfg`` as configured."""
    hw = cfg.hardware
    if hw.device == "cpu":
        cores = usable_cores()
        if hw.processes > cores:
            raise ConfigError(f"hardware.processes is {hw.processes} but this machine has {cores} CPU cores; "
                              f"use at most {cores}")
        return
    gpus = visible_gpus()
    if gpus is None:
        return
    if gpus == 0:
        raise ConfigError("hardware.device is cuda but no CUDA GPU is visible; choose cpu")
    needed = max(hw.gpus) + 1 if hw.gpus else hw.processes
    if needed > gpus:
        raise ConfigError(f"the config needs {needed} GPUs but {gpus} are visible; lower hardware.processes "
                          "or hardware.gpus")
