"""Make and check the recordings Studio ships (``core/demos/recordings``): ``record`` computes a demo or lab page
at its recorded settings with the same code Compute runs and saves it; ``check`` re-runs the cheap start of it
(the first frames a demo emits, a scheduling replay in full) and says what differs, so a code change that changes a
result fails CI until the recordings are made again (``studio demo --record-all resources/demos``).

Demos run in this process (``DEMOS.build``); lab pages through their background task's ``run(request, progress)``
(``core/contracts/tasks``), except Scheduling, which replays a synthetic trace (a fresh install has no runs of its
own to replay). No Qt; torch only inside the demos that use it.
"""

from __future__ import annotations

import datetime
import os
import platform
import resource as rusage
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from studio.core.contracts.progress import as_progress
from studio.core.demos.catalog import DEMOS
from studio.core.demos.recording_file import Recording, save
from studio.core.demos.recordings import default_params, lab_page, path_of
from studio.core.targets import resolve_target

FRAMES = 3  # the frames a recording keeps for its check
RTOL, ATOL = 2e-3, 1e-5  # how far a re-run may be from the recording (float32 storage, other CPUs' rounding)
Progress = Callable[..., Any]  # (fraction, text) for a demo, a Report for a lab page: StderrProgress takes both


class Enough(Exception):  # noqa: N818 - not an error: the check has the frames it needs
    """Raised from ``emit`` once the check has its frames: the demo stops there."""


def compute(name: str, params: dict[str, Any] | None = None, progress: Progress | None = None,
            emit: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The result the view of ``name`` shows, computed now at ``params`` (default: the recorded settings)."""
    values = dict(default_params(name) if params is None else params)
    page = lab_page(name)
    if page is None:
        return DEMOS.build(name, progress=progress, emit=emit, **DEMOS.resolve(name, values, "demo"))
    request = resolve_target(page.request)(**_as_fields(values))
    if name == "parallel_schedule":
        return synthetic_schedule(request, progress)
    from studio.core.contracts.tasks import task_for

    return dict(resolve_target(task_for(request).target)(request=request, progress=as_progress(progress)))


def _as_fields(values: dict[str, Any]) -> dict[str, Any]:
    """A request's fields from plain settings (lists back to the tuples the dataclasses hold)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


def synthetic_schedule(request: Any, progress: Progress | None = None, jobs: int = 60) -> dict[str, Any]:
    """The Scheduling page's result for a seeded synthetic trace (``core/scheduling/traces.heavy_tailed``) on the
    request's GPUs and policies: what the page shows before it has runs of its own to replay."""
    from studio.core.scheduling.policies import parse_policies
    from studio.core.scheduling.study import default_quantum, simulate
    from studio.core.scheduling.traces import heavy_tailed

    trace = heavy_tailed(n=jobs, gpus=request.gpus, seed=0)
    policies = parse_policies(",".join(request.policies))
    quantum = default_quantum(trace)
    rows = [row for _, row in simulate(trace, request.gpus, policies, quantum, request.thresholds, progress)]
    return {"gpus": request.gpus, "arrivals": request.arrivals, "repeat": 1, "quantum": quantum,
            "thresholds": list(request.thresholds), "skipped": {},
            "jobs": [{"id": j.id, "name": j.name, "arrival": j.arrival, "duration": j.duration, "gpus": j.gpus}
                     for j in trace], "policies": rows}


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (a lab page's ranks are children)."""
    own, children = rusage.getrusage(rusage.RUSAGE_SELF), rusage.getrusage(rusage.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def record(name: str, folder: str | Path | None = None, progress: Progress | None = None,
           frames: int = FRAMES) -> Recording:
    """Compute ``name`` at its recorded settings, keep its first ``frames`` frames, save it as ``folder/<name>.npz``
    (default: the shipped one) and return it."""
    from studio import __version__

    params = default_params(name)
    kept: list[dict[str, Any]] = []

    def keep(frame: dict[str, Any]) -> None:
        if len(kept) < frames:
            kept.append(frame)

    page = lab_page(name)  # imported before the clock starts: the GUI's warm back end has them loaded
    resolve_target(page.request) if page is not None else DEMOS.get(name).load_builder()
    cpu, started = _cpu_seconds(), time.perf_counter()
    result = compute(name, params, progress, keep)
    seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    meta = {"recorded": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "studio": __version__,
            "torch": _torch_version(), "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
            "cores": os.cpu_count() or 1, "machine": platform.machine(),
            "load": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None}
    recording = Recording(name, params, result, kept, meta)
    save(recording, path_of(name, folder))
    return recording


def _torch_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return ""


def check(recording: Recording, progress: Progress | None = None) -> list[str]:
    """What a fresh run of ``recording``'s start shows differently (empty: the code still makes it). The settings
    must still be the defaults; a demo's first frames (or, for one that emits none, its whole result) are computed
    again and compared; a lab page's measured times are this machine's, so only Scheduling (a simulation) is."""
    name = recording.name
    drift = [k for k, v in default_params(name).items() if _plain(recording.params.get(k)) != _plain(v)]
    if drift or set(recording.params) != set(default_params(name)):
        return [f"{name}: its default settings changed ({', '.join(drift) or 'the setting names'})"]
    page = lab_page(name)
    if page is not None:
        if name != "parallel_schedule":
            return []
        return differences(compute(name, recording.params, progress), recording.result, name)
    fresh: list[dict[str, Any]] = []
    wanted = len(recording.frames)

    def collect(frame: dict[str, Any]) -> None:
        fresh.append(frame)
        if wanted and len(fresh) >= wanted:
            raise Enough

    try:
        result = compute(name, recording.params, progress, collect)
    except Enough:
        return differences(fresh, recording.frames, f"{name} frames")
    if wanted:
        return [f"{name}: emitted {len(fresh)} frames, the recording kept {wanted}"]
    return differences(result, recording.result, name)


def differences(new: Any, old: Any, where: str = "", limit: int = 5) -> list[str]:
    """Where two results differ (numbers compared with ``RTOL``/``ATOL``), at most ``limit`` places."""
    out: list[str] = []
    _compare(_normal(new), _normal(old), where, out, limit)
    return out


def _normal(value: Any) -> Any:
    """A value as a recording gives it back: tuples as lists, tensors as arrays."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_normal(v) for v in value]
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return value


def _compare(new: Any, old: Any, where: str, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        if set(new) != set(old):
            out.append(f"{where}: keys {sorted(map(str, set(new) ^ set(old)))} differ")
            return
        for key in old:
            _compare(new[key], old[key], f"{where}.{key}", out, limit)
        return
    if isinstance(old, list) and isinstance(new, list) and not _numeric(old):
        if len(new) != len(old):
            out.append(f"{where}: {len(new)} items, recorded {len(old)}")
            return
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            _compare(a, b, f"{where}[{i}]", out, limit)
        return
    if _numeric(old) and _numeric(new):
        a, b = np.asarray(new, dtype=np.float64), np.asarray(old, dtype=np.float64)
        if a.shape != b.shape:
            out.append(f"{where}: shape {a.shape}, recorded {b.shape}")
        elif not np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
            worst = np.nanmax(np.abs(a - b)) if a.size else 0.0
            out.append(f"{where}: differs by up to {worst:.3g}")
        return
    if new != old:
        out.append(f"{where}: {new!r} now, recorded {old!r}")


def _numeric(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float | np.number | np.ndarray):
        return not isinstance(value, np.ndarray) or value.dtype.kind in "biuf"
    if isinstance(value, list) and value:
        return all(_numeric(v) and not isinstance(v, list) for v in value) or all(
            isinstance(v, list) and _numeric(v) for v in value)
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value
