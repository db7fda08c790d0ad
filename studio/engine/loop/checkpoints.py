"""Checkpoint files: atomic writes, keep-last-N, safe loading, and the state a run resumes from.

A checkpoint is a dict loadable with ``torch.load(..., weights_only=True)``: ``model``, ``step``,
``epoch`` (epochs done), ``config`` and, after the first step, ``optimizer`` (the keys other tools
read; keep them), plus ``resume``: the scheduler, the loop's position in the epoch, the per-rank RNG
states, the callbacks' own state and the running sums: everything ``studio train --resume`` needs to
continue the run as if it had never stopped.

Writes go to a temporary name in the same folder, are fsynced, renamed over the target and the folder
is fsynced: a crash or a full disk mid-write never leaves a run without its previous loadable checkpoint,
and never leaves a half-written file behind.
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import torch

from studio.core.contracts.layout import step_files, step_of
from studio.core.errors import DataError, DiskFull, RunFailed
from studio.core.host import fault_points


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_save(state: dict[str, Any], path: Path) -> Path:
    """Write ``state`` to ``path``: temp file + fsync + rename + folder fsync. On failure the temp file is
    removed and a RunFailed (DiskFull when the disk is full) names the file."""
    path = Path(path)
    buffer = io.BytesIO()
    torch.save(state, buffer)  # serialise first: a write error is then a plain OSError, not torch's
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(buffer.getbuffer())
            fh.flush()
            fault_points.reached("checkpoint.write")  # test-only: a crash with the bytes written, not renamed
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as err:
        try:
            tmp.unlink()
        except OSError:
            pass
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(f"the disk is full: checkpoint {path} could not be written; free some space, then "
                           "`studio train --resume` continues from the last checkpoint") from None
        raise RunFailed(f"checkpoint {path} could not be written: {err.strerror}") from None
    _fsync_dir(path.parent)
    remove_stale_temps(path.parent)
    return path


def remove_stale_temps(folder: Path) -> list[Path]:
    """Delete the temporary files (``.NAME.PID.tmp``) of writers that were killed mid-write: their process is gone,
    so the file is only the half of a checkpoint no name points to (the crash-consistency test found them left)."""
    from studio.core.host import procs

    removed = []
    for tmp in folder.glob(".*.tmp"):
        pid = tmp.name[: -len(".tmp")].rpartition(".")[2]
        if pid.isdigit() and int(pid) != os.getpid() and not procs.alive(pid):
            try:
                tmp.unlink()
                removed.append(tmp)
            except OSError:
                pass
    return removed


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` step checkpoints (0: keep all).

    final.pt and step 0 (the initial weights: the far end of the 1-D interpolation, the start of the
    trajectory and the landscape tab's "initial" choice) are never touched."""
    files = [f for f in step_files(folder) if step_of(f) != 0]
    doomed = files[:-keep] if keep > 0 else []
    for path in doomed:
        try:
            path.unlink()
        except OSError:
            pass
    return doomed


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint's contents, loaded with ``weights_only=True`` (never runs code from the file).
    Anything else (random bytes, a pickle of other objects, a truncated file) is one DataError naming it."""
    path = Path(path)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (FileNotFoundError, PermissionError, IsADirectoryError) as err:
        raise DataError(f"cannot read checkpoint {path}: {err.strerror or err}") from None
    except Exception as err:  # noqa: BLE001 - unpickling errors of every kind: refuse, never execute
        text = str(err)
        why = ("it holds objects other than tensors and numbers, which Studio never loads"
               if "weights_only" in text or "Unsupported global" in text else "it is damaged or of another kind")
        raise DataError(f"{path} is not a Studio checkpoint: {why}") from None
    if not isinstance(state, dict) or not isinstance(state.get("model"), dict):
        raise DataError(f"{path} is not a Studio checkpoint (no model weights)")
    return state


def load_weights_into(model: torch.nn.Module, weights: dict[str, Any], path: str | Path) -> None:
    """``model.load_state_dict(weights)``, or one DataError sentence when the checkpoint is another model's."""
    try:
        model.load_state_dict(weights)
    except RuntimeError as err:
        raise DataError(f"checkpoint {Path(path).name} does not fit this run's model: it was saved by a model of "
                        f"another architecture ({mismatch_detail(str(err))})") from None


def mismatch_detail(text: str) -> str:
    """The first difference in torch's several-line ``load_state_dict`` error, on one line."""
    lines = [line.strip().rstrip(".") for line in text.splitlines()[1:] if line.strip()] or [text.strip()]
    detail = " ".join(lines[0].split())
    return detail if len(detail) <= 200 else detail[:199] + "…"


# --- resume state -----------------------------------------------------------------------------
def rng_state(device: torch.device) -> dict[str, Any]:
    state: dict[str, Any] = {"torch": torch.get_rng_state()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict[str, Any], device: torch.device) -> None:
    torch.set_rng_state(state["torch"])
    if device.type == "cuda" and "cuda" in state:
        torch.cuda.set_rng_state(state["cuda"], device)


def gather_rng(ctx: Any, extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every rank's RNG state (and ``extra`` per-rank tensors: the running loss sums), on every rank (one
    collective; all ranks must call it together)."""
    mine = {**rng_state(ctx.device), **{k: v.detach().cpu().clone() for k, v in (extra or {}).items()}}
    if not ctx.distributed:
        return [mine]
    import torch.distributed as dist

    out: list[Any] = [None] * ctx.world_size
    dist.all_gather_object(out, {k: v.cpu() for k, v in mine.items()})
    return out


def resume_position(state: dict[str, Any]) -> tuple[int, int]:
    """(epoch to start in, batches of it already done) from a checkpoint."""
    pos = state.get("resume", {}).get("position") or {}
    epoch, batch, done = int(pos.get("epoch", 0)), int(pos.get("batch", 0)), int(state.get("epoch", 0))
    return (done, 0) if done > epoch else (epoch, batch)
