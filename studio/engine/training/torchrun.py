"""Running under ``torchrun`` (one machine or many, by hand or from Slurm): which run this is, and whether
it starts fresh or continues from its last checkpoint.

``torchrun [--nnodes N --node-rank R --rdzv-...] -m studio.engine.worker --config F [--run-id ID]``

The run's id, in order: ``--run-id``; else one derived from torchrun's rendezvous id
(``TORCHELASTIC_RUN_ID``: ``--rdzv-id``, which a Slurm script sets to the job id, or the random id
``--standalone`` picks), stable across torchrun's elastic restarts (``--max-restarts``); else a fresh id.

If a run with that id is already in the store and has a checkpoint, the run continues from it in place
(same id, folder and curves): a rank killed and restarted by torchrun, a Slurm job requeued after SIGTERM
at its time limit. A run that already finished is left alone. Rank 0 decides and tells the others through
torchrun's key-value store, so every rank continues from the same checkpoint file; on several machines that
file, like the whole store (``STUDIO_HOME``), must be on a filesystem they share. Rank 0 alone writes the store.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from studio.core.config import RunConfig
from studio.core.errors import ConfigError, StudioError
from studio.core.runs.store import RunStore
from studio.core.vocab import JobState
from studio.engine.training.rank_spec import RankSpec

ID_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class TorchrunPlan:
    run_id: str
    run_dir: str
    resume_from: str | None  # a checkpoint to continue from, or None: a fresh start
    config: RunConfig
    finished: bool = False  # the run already finished: nothing to do


def rank_env() -> tuple[int, int, int]:
    """(rank, world size, local rank) as torchrun sets them (1 process when run by hand)."""
    rank = int(os.environ.get("RANK", 0))
    return rank, int(os.environ.get("WORLD_SIZE", 1)), int(os.environ.get("LOCAL_RANK", rank))


def run_id_from_env(given: str | None) -> str | None:
    """``--run-id``, else ``torchrun-<rendezvous id>`` when torchrun names one, else None (a fresh id)."""
    if given:
        if ID_CHARS.search(given) or given.startswith("."):
            raise ConfigError(f"--run-id {given!r}: use letters, digits, '.', '_' and '-' only")
        return given
    rdzv = os.environ.get("TORCHELASTIC_RUN_ID", "")
    if rdzv and rdzv != "none":
        return "torchrun-" + ID_CHARS.sub("-", rdzv)[:64]
    return None


def _plan_channel() -> Any:
    """torchrun's own key-value store (the agent's, a prefix per restart attempt; training/distributed.py), or None
    where the agent does not serve one: then every rank reads the run store itself."""
    from studio.engine.loop.distributed import elastic_store

    return elastic_store()


def _send(channel: Any, p: TorchrunPlan) -> None:
    channel.set("studio_plan", json.dumps({"run_id": p.run_id, "run_dir": p.run_dir, "resume_from": p.resume_from,
                                           "config": p.config.to_dict(), "finished": p.finished,
                                           "code": code_of(p)}))


def code_of(p: TorchrunPlan) -> dict[str, dict[str, str]]:
    """The user files the run trains (its copies in the run folder), by config section: the file travels with the
    plan, so a rank on a machine without the user's tree (or the run folder) imports the same code."""
    from studio.core.usercode.run_copy import point_to_copies, user_files

    config = point_to_copies(p.config, p.run_dir)
    return {section: {"name": path.name, "text": path.read_text(encoding="utf-8")}
            for section, path in user_files(config.to_dict()) if path.is_file()}


def _receive(channel: Any) -> TorchrunPlan:
    """Wait for rank 0's plan (it fails the whole group if it cannot make one: torchrun then stops this rank)."""
    got = json.loads(channel.get("studio_plan"))
    config = RunConfig.from_dict(got["config"])
    if got.get("code"):
        import tempfile
        from pathlib import Path

        folder = Path(tempfile.mkdtemp(prefix="studio-code-"))  # rank 0's copies, as this rank imports them
        for section, code in got["code"].items():
            target = folder / section / code["name"]
            target.parent.mkdir()
            target.write_text(code["text"], encoding="utf-8")
            getattr(config, section).params["path"] = str(target)
    return TorchrunPlan(got["run_id"], "", got["resume_from"], config, got["finished"])


def _open_store(rank: int) -> RunStore | None:
    """Rank 0's store, writable; the others read it only (``mode=ro``), or not at all before it exists."""
    if rank == 0:
        return RunStore()
    try:
        return RunStore(read_only=True)
    except StudioError:  # no runs.db yet: a new run, which rank 0 is creating
        return None


def plan(store: RunStore | None, cfg: RunConfig, run_id: str | None, rank: int, name: str = "") -> TorchrunPlan:
    """Create the run (rank 0 only) or find the one to continue. Ranks other than 0 only read the store (``None``:
    there is none yet); they decide before any rank can write a new checkpoint (that needs every rank in the
    process group), so all ranks continue from the same file."""
    existing = None
    if run_id and store is not None:
        try:
            existing = store.get(run_id)
        except StudioError:
            existing = None
    if existing is not None:
        if existing.status == JobState.FINISHED:
            return TorchrunPlan(existing.id, str(existing.dir), None, existing.run_config, finished=True)
        ckpt = existing.last_checkpoint
        resumed_cfg = existing.run_config
        resumed_cfg.hardware.processes = cfg.hardware.processes
        if ckpt is not None:
            if rank == 0 and store is not None:
                store.set_status(existing.id, JobState.QUEUED, f"continuing from {ckpt.name} (torchrun restart "
                                 f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')})")
            return TorchrunPlan(existing.id, str(existing.dir), str(ckpt), resumed_cfg)
        return TorchrunPlan(existing.id, str(existing.dir), None, resumed_cfg)  # died before its first checkpoint
    if rank != 0 or store is None:
        return TorchrunPlan(run_id or f"rank{rank}", "", None, cfg)
    info = store.create_run(cfg, name=name, run_id=run_id)
    return TorchrunPlan(info.id, str(info.dir), None, cfg)


def rank_from_args(argv: list[str] | None = None) -> tuple[int, RankSpec] | None:
    """This rank and what it runs, from the command line and torchrun's environment (rank 0 records the run);
    None when the run already finished. A config or store problem exits 2 with one line."""
    parser = argparse.ArgumentParser(prog="python -m studio.engine.worker")
    parser.add_argument("--config", help="run config TOML (default: the built-in default)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--run-id", help="the run's id in the store: created if new, continued from its last "
                        "checkpoint if it exists (a restarted rank, a requeued job)")
    parser.add_argument("--name", default="", help="a name for a new run")
    args = parser.parse_args(argv)
    rank, world, local_rank = rank_env()
    channel = _plan_channel() if world > 1 else None
    store = None
    try:
        if rank != 0 and channel is not None:
            p = _receive(channel)  # rank 0's decision: every rank continues the same run from the same file
        else:
            cfg = RunConfig.load(args.config) if args.config else RunConfig()
            cfg = cfg.with_overrides(args.set)
            cfg.hardware.processes = world
            store = _open_store(rank)
            p = plan(store, cfg, run_id_from_env(args.run_id), rank, args.name)
            if channel is not None:
                _send(channel, p)
    except StudioError as err:
        print(f"studio: error: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
    if p.finished:
        if rank == 0:
            print(f"run {p.run_id} already finished; nothing to do", file=sys.stderr)
        return None
    if rank == 0:
        verb = f"continuing from {os.path.basename(p.resume_from)}" if p.resume_from else "new"
        print(f"run {p.run_id} ({verb}) in {p.run_dir}", file=sys.stderr)
    return rank, RankSpec(p.run_id, world, p.config.to_dict(), p.run_dir, home=str(store.home) if store else "",
                          init_method="env://", local_rank=local_rank, resume_from=p.resume_from)
