"""``studio export-config``: a run's config (from the store, or a file) as ``config.toml``, and with
``--torchrun`` a ready-to-submit Slurm batch script beside it (core/config/slurm.py; docs/user-guide/clusters.md).

With ``--json`` the last line on stdout is one JSON object: ``config``, ``script`` (or null), ``run_id``,
``nodes``, ``ranks_per_node``, ``world_size``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from studio.cli._shared import add_config_args, add_output_args

COMMANDS = ("export-config",)


def cmd_export_config(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.config import RunConfig
    from studio.core.config.slurm import ClusterSpec, run_id_for, write_cluster_job
    from studio.core.errors import ConfigError
    from studio.core.host.paths import studio_home

    if bool(args.run) == bool(args.config):
        raise ConfigError("give a run (its id or folder) or --config FILE, not both")
    if args.run:
        from studio.core.runs.store import RunStore

        info = RunStore().resolve(args.run)
        cfg, name = info.run_config, info.name
    else:
        cfg, name = RunConfig.load(args.config), ""
    cfg = cfg.with_overrides(args.set)
    spec = ClusterSpec(nodes=args.nodes, gpus_per_node=args.gpus_per_node, procs_per_node=args.procs_per_node,
                       time_limit=args.time, partition=args.partition or "", signal_seconds=args.signal_seconds,
                       max_restarts=args.max_restarts, cpus_per_node=args.cpus_per_node)
    spec.check()
    if not args.torchrun and (args.nodes != 1 or args.gpus_per_node):
        raise ConfigError("--nodes and --gpus-per-node describe a torchrun launch: add --torchrun")
    run_id = args.run_id or run_id_for(cfg.model.name)
    out = Path(args.out or f"studio-{run_id}").resolve()
    home = str(Path(args.studio_home).resolve()) if args.studio_home else str(studio_home())
    config_path, script_path = write_cluster_job(cfg, spec, out, run_id, home, args.torchrun, args.job_name or "",
                                                 name)
    world_size = spec.nodes * spec.ranks_per_node
    if args.json:
        emit_json({"config": str(config_path), "script": str(script_path) if script_path else None,
                   "run_id": run_id, "nodes": spec.nodes, "ranks_per_node": spec.ranks_per_node,
                   "world_size": world_size})
    else:
        print(f"wrote {config_path}" + (f" and {script_path}" if script_path else ""), file=sys.stderr)
        if script_path:
            print(f"submit with: sbatch {script_path}  (run {run_id}: {spec.nodes} node(s) × "
                  f"{spec.ranks_per_node} rank(s); the run store must be on a filesystem every node shares)",
                  file=sys.stderr)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-config", help="write a run's config.toml and, with --torchrun, a Slurm batch script")
    p.add_argument("run", nargs="?", help="a run in the store (id or folder) whose config to export")
    add_config_args(p, config_help="a run config TOML file instead of a run")
    p.add_argument("--torchrun", action="store_true", help="also write run.sbatch: torchrun on Slurm nodes")
    p.add_argument("--nodes", type=int, default=1, help="machines (default 1)")
    p.add_argument("--gpus-per-node", type=int, default=0, help="GPUs a node, one rank each (0: CPU ranks)")
    p.add_argument("--procs-per-node", type=int, default=1, help="CPU ranks a node when --gpus-per-node is 0")
    p.add_argument("--cpus-per-node", type=int, default=0, help="CPU cores to ask for a node (0: Slurm's default)")
    p.add_argument("--time", default="04:00:00", help="the job's time limit (Slurm's form; default 04:00:00)")
    p.add_argument("--partition", help="the Slurm partition")
    p.add_argument("--signal-seconds", type=int, default=120,
                   help="SIGTERM this many seconds before the time limit, to checkpoint and requeue (default 120)")
    p.add_argument("--max-restarts", type=int, default=3, help="torchrun's restarts after a rank fails (default 3)")
    p.add_argument("--run-id", help="the id the run gets in the store (default: a fresh one, fixed in the script)")
    p.add_argument("--job-name", help="the Slurm job name (default: studio-RUN_ID)")
    p.add_argument("--studio-home", help="the run store on the cluster's shared filesystem (default: STUDIO_HOME)")
    p.add_argument("--out", help="the folder to write (default: ./studio-RUN_ID)")
    add_output_args(p, what="what was written")
    p.set_defaults(func=cmd_export_config)
