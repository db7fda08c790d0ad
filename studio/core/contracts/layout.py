"""The run folder: every file and folder name in it, the paths built from a run directory, and the listing of
its checkpoints. The one owner of these rules; pure pathlib (no torch, no Qt), so every layer can use it.

::

    HOME/runs.db                       the store's index (core/runs/db.py)
    HOME/runs/<run id>/                a run's folder
        config.toml                    its RunConfig
        run.json                       its record: name, status, message, summary (core/runs/record.py)
        checkpoints/step_0000000.pt    step checkpoints (step 0: the initial weights), keep-last-N pruned
        checkpoints/final.pt           the weights at the end (repeats the last step's)
        snapshots/step_0000120.pt      float16 weights for trajectories (engine/callbacks/trajectory_snapshots.py)
        attention/step_0000050.pt      attention snapshots of Transformers (engine/callbacks/attention_snapshots.py)
        metrics.csv                    every logged value, appended as it is logged (core/runs/metric_log.py)
        lineage.json                   what a run built on another run keeps of it (core/runs/lineage_record.py)
        histograms.jsonl               weight and gradient histograms per tensor, a line each (core/runs/histograms.py)
        landscapes/<name>.npz          landscape results and sharpness_<time>.json (core/landscape/io.py)
        evaluations/<split>-<checkpoint>.json and .npz   saved evaluations (engine/tasks/evaluation.py)
        compressed/<id>/model.pt, summary.json; compressed/sweep.json   compressions (engine/tasks/compression.py)
        logs/rank0.stderr              what each rank wrote to stderr (engine/jobs/child_stderr.py): the last lines
                                       of a rank that died before it could report go into the run's message
        code/my_net.py, manifest.json  a copy of the user's model or dataset file the run trained, with its source
                                       path and SHA-256 (core/usercode/run_copy.py); config.toml names the copy
    HOME/trusted_code.json             SHA-256 of the code files this user let Studio import from run folders
        tracked.json                   a run Studio did not train (studio.track, a TensorBoard import, `studio
                                       attach`): where it came from and the script's own settings
                                       (core/runs/tracked.py)
        attached/model.py              its model's code, copied; attached/model.json: the class and its arguments;
        attached/data.pt               attached/data.pt: a batch of its data (engine/attached.py builds them)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from studio.core.errors import ConfigError, DataError

# --- the store's home ------------------------------------------------------------------------------------
RUNS_DIR: Final = "runs"
DATABASE: Final = "runs.db"

# --- a run's folder --------------------------------------------------------------------------------------
CONFIG: Final = "config.toml"
RECORD: Final = "run.json"
CHECKPOINTS: Final = "checkpoints"
SNAPSHOTS: Final = "snapshots"
ATTENTION: Final = "attention"
LANDSCAPES: Final = "landscapes"
EVALUATIONS: Final = "evaluations"
COMPRESSED: Final = "compressed"
FINAL: Final = "final.pt"
STEP_GLOB: Final = "step_*.pt"
STEP_FILE: Final = re.compile(r"^step_(\d+)\.pt$")
_STEP_IN_NAME: Final = re.compile(r"step_(\d+)\.pt$")  # a file given by path may have more before it
COMPRESSED_MODEL: Final = "model.pt"
COMPRESSED_SUMMARY: Final = "summary.json"
SWEEP: Final = "sweep.json"
HISTOGRAMS: Final = "histograms.jsonl"
METRICS: Final = "metrics.csv"
LINEAGE: Final = "lineage.json"
LOGS: Final = "logs"
CODE: Final = "code"
CODE_MANIFEST: Final = "manifest.json"
TRUSTED_CODE: Final = "trusted_code.json"
TRACKED: Final = "tracked.json"
ATTACHED: Final = "attached"
ATTACHED_CODE: Final = "model.py"
ATTACHED_MODEL: Final = "model.json"
ATTACHED_DATA: Final = "data.pt"

PathLike = str | Path


def runs_dir(home: PathLike) -> Path:
    return Path(home) / RUNS_DIR


def database_path(home: PathLike) -> Path:
    return Path(home) / DATABASE


def config_path(run_dir: PathLike) -> Path:
    return Path(run_dir) / CONFIG


def record_path(run_dir: PathLike) -> Path:
    return Path(run_dir) / RECORD


def lock_path(run_dir: PathLike) -> Path:
    """The file whose OS lock the process training the run holds (core/runs/run_lock.py)."""
    return Path(run_dir) / ".train.lock"


def checkpoints_dir(run_dir: PathLike) -> Path:
    return Path(run_dir) / CHECKPOINTS


def snapshots_dir(run_dir: PathLike) -> Path:
    return Path(run_dir) / SNAPSHOTS


def histograms_path(run_dir: PathLike) -> Path:
    """The run's weight and gradient histograms: JSON lines, appended while it trains."""
    return Path(run_dir) / HISTOGRAMS


def metrics_path(run_dir: PathLike) -> Path:
    """The run's own record of every logged value (``step,name,value,wall`` lines, appended): runs.db's metric
    rows are rebuilt from it."""
    return Path(run_dir) / METRICS


def lineage_path(run_dir: PathLike) -> Path:
    """What a run built on another run (a fine-tuned classifier) keeps of its parent, so it needs it no more."""
    return Path(run_dir) / LINEAGE


def rank_log_path(run_dir: PathLike, rank: int) -> Path:
    """What rank ``rank`` wrote to stderr (``logs/rank0.stderr``)."""
    return Path(run_dir) / LOGS / f"rank{rank}.stderr"


def code_dir(run_dir: PathLike) -> Path:
    """The copies of the user's own code files the run trained (a ``python`` model or dataset)."""
    return Path(run_dir) / CODE


def code_manifest_path(run_dir: PathLike) -> Path:
    """What ``code/`` holds: each file's role, source path and SHA-256."""
    return code_dir(run_dir) / CODE_MANIFEST


def trusted_code_path(home: PathLike) -> Path:
    """The SHA-256 of code files from run folders that this user has agreed to run."""
    return Path(home) / TRUSTED_CODE
def tracked_path(run_dir: PathLike) -> Path:
    """Where a run Studio did not train came from, and the script's own settings (core/runs/tracked.py)."""
    return Path(run_dir) / TRACKED


def attached_dir(run_dir: PathLike) -> Path:
    """A model trained elsewhere: its code, its class and arguments, a batch of its data (engine/attached.py)."""
    return Path(run_dir) / ATTACHED


def attached_code_path(run_dir: PathLike) -> Path:
    return attached_dir(run_dir) / ATTACHED_CODE


def attached_model_path(run_dir: PathLike) -> Path:
    return attached_dir(run_dir) / ATTACHED_MODEL


def attached_data_path(run_dir: PathLike) -> Path:
    return attached_dir(run_dir) / ATTACHED_DATA


def run_path(home: PathLike, run_id: str) -> Path:
    """A run's folder in the store at ``home``."""
    return runs_dir(home) / run_id


def landscapes_dir(run_dir: PathLike) -> Path:
    return Path(run_dir) / LANDSCAPES


def evaluations_dir(run_dir: PathLike) -> Path:
    return Path(run_dir) / EVALUATIONS


def compressed_dir(run_dir: PathLike) -> Path:
    return Path(run_dir) / COMPRESSED


def compressed_entry_dir(run_dir: PathLike, entry_id: str) -> Path:
    """One saved compression: ``compressed/<id>/`` (its ``model.pt`` and ``summary.json``)."""
    return compressed_dir(run_dir) / entry_id


def sweep_path(run_dir: PathLike) -> Path:
    """The run's last sparsity sweep."""
    return compressed_dir(run_dir) / SWEEP


def final_path(run_dir: PathLike) -> Path:
    return checkpoints_dir(run_dir) / FINAL


def step_name(step: int) -> str:
    """``step_0000355.pt``: zero-padded, so names sort like steps up to 10 million."""
    return f"step_{step:07d}.pt"


def step_of(path: PathLike) -> int | None:
    """The step a ``step_*.pt`` file holds, None for any other name."""
    m = STEP_FILE.match(Path(path).name)
    return int(m.group(1)) if m else None


def checkpoint_path(run_dir: PathLike, step: int) -> Path:
    return checkpoints_dir(run_dir) / step_name(step)


def snapshot_path(run_dir: PathLike, step: int) -> Path:
    return snapshots_dir(run_dir) / step_name(step)


def attention_dir(run_dir: PathLike) -> Path:
    """The run's attention snapshots (weights and probe maps of a Transformer, for the Attention view)."""
    return Path(run_dir) / ATTENTION


def attention_path(run_dir: PathLike, step: int) -> Path:
    return attention_dir(run_dir) / step_name(step)


def evaluation_stem(split: str, checkpoint_label: str) -> str:
    """A saved evaluation's file name without suffix: ``test-final``, ``val-step355``."""
    return f"{split}-{checkpoint_label.replace(' ', '')}"


def evaluation_path(run_dir: PathLike, split: str, checkpoint_label: str) -> Path:
    """``evaluations/<split>-<checkpoint>.json`` (its arrays are in the ``.npz`` beside it)."""
    return evaluations_dir(run_dir) / f"{evaluation_stem(split, checkpoint_label)}.json"


def is_run_dir(path: PathLike) -> bool:
    """A run's own folder: it holds the run's ``config.toml``."""
    return Path(path).is_dir() and config_path(path).is_file()


# --- checkpoints -----------------------------------------------------------------------------------------
def step_files(folder: PathLike) -> list[Path]:
    """The ``step_*.pt`` files in ``folder``, oldest step first (by number, not by name); [] if it is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = [(step, p) for p in folder.iterdir() if (step := step_of(p)) is not None]
    return [p for _, p in sorted(found)]


@dataclass(frozen=True)
class CheckpointRef:
    """A saved point of a run: a checkpoint or weight snapshot file and the step it holds."""

    path: Path
    step: int

    @property
    def is_final(self) -> bool:
        return self.path.name == FINAL

    @property
    def label(self) -> str:
        return "final" if self.is_final else f"step {self.step}"


def _refs(folder: Path) -> list[CheckpointRef]:
    return [CheckpointRef(p, step_of(p) or 0) for p in step_files(folder)]


def list_checkpoints(run_dir: PathLike, with_final: bool = False) -> list[CheckpointRef]:
    """The run's ``checkpoints/step_*.pt`` in step order; with ``with_final`` also ``final.pt``, last (its step
    is the last step checkpoint's, -1 when there is none)."""
    refs = _refs(checkpoints_dir(run_dir))
    final = final_path(run_dir)
    if with_final and final.exists():
        refs.append(CheckpointRef(final, refs[-1].step if refs else -1))
    return refs


def list_snapshots(run_dir: PathLike) -> list[CheckpointRef]:
    """The run's float16 weight snapshots (``snapshots/step_*.pt``) in step order: weights only, for trajectories."""
    return _refs(snapshots_dir(run_dir))


def list_attention(run_dir: PathLike) -> list[CheckpointRef]:
    """The run's attention snapshots (``attention/step_*.pt``) in step order."""
    return _refs(attention_dir(run_dir))


def path_points(run_dir: PathLike) -> list[CheckpointRef]:
    """Every saved point of the training path, for a trajectory: the step checkpoints, and the snapshots at
    steps no checkpoint holds."""
    checkpoints = list_checkpoints(run_dir)
    have = {r.step for r in checkpoints}
    return sorted(checkpoints + [r for r in list_snapshots(run_dir) if r.step not in have], key=lambda r: r.step)


def last_checkpoint(run_dir: PathLike) -> Path | None:
    """The newest step checkpoint (what ``studio train --resume`` continues from), or None."""
    files = step_files(checkpoints_dir(run_dir))
    return files[-1] if files else None


def final_checkpoint(run_dir: PathLike) -> CheckpointRef:
    """``final.pt``, else the latest step checkpoint; DataError when the run saved none."""
    refs = list_checkpoints(run_dir, with_final=True)
    if refs:
        return refs[-1]
    raise DataError(f"the run in {run_dir} has no checkpoints yet; a run saves them at its start and end")


def resolve_checkpoint(run_dir: PathLike, which: str | None) -> CheckpointRef:
    """A checkpoint by ``None``/"final", "initial" (step 0), a step number, or a file path."""
    if which in (None, "", "final"):
        return final_checkpoint(run_dir)
    steps = list_checkpoints(run_dir)
    if which == "initial":
        if not steps:
            raise DataError(f"the run in {run_dir} has no step checkpoints")
        return steps[0]
    if str(which).isdigit():
        for ref in steps:
            if ref.step == int(which):
                return ref
        have = ", ".join(str(r.step) for r in steps) or "none"
        raise ConfigError(f"the run has no checkpoint at step {which}; saved steps: {have}")
    path = Path(str(which))
    if path.exists():
        m = _STEP_IN_NAME.search(path.name)
        return CheckpointRef(path, int(m.group(1)) if m else -1)
    raise ConfigError(f"unknown checkpoint {which!r}: give final, initial, a step number or a .pt file")
