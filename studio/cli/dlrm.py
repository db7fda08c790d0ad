"""``studio dlrm``: DLRM-style hybrid parallelism (Naumov et al. 2019) — a small recommendation model trained in
one process and on ``--ranks`` processes with its embedding tables split between them (all-to-all of the
looked-up vectors, forward and backward) and its MLPs data-parallel (all-reduce of their gradients), on synthetic
clicks (``engine/dlrm``). gloo on the CPU; NCCL with ``--device cuda``.

Without ``--json``: the two loss curves' largest gap, the memory per rank (tables, MLPs) beside the one process's,
the all-to-all's bytes per step beside batch × tables × dim × 4, and where each rank's time went. With ``--json``
the last line on stdout is one JSON object (``core/contracts/dlrm.DlrmResult``): ``runs`` (per seed the ``single``
and ``hybrid`` losses and ``max_gap``), ``equal``, ``loss_tolerance``, ``memory``, ``single_memory``,
``exchange``, ``timeline``, ``shares``, ``step_ms``, ``floor``, … Exit 2 on bad input (before any process starts),
3 when a rank died.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, run_and_print
from studio.core.contracts.dlrm import MAX_RANKS, DlrmRequest, DlrmResult

COMMANDS = ("dlrm",)


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def request_from(args: argparse.Namespace) -> DlrmRequest:
    """The request the flags describe (checked in full by the engine before any process starts)."""
    from studio.core.errors import ConfigError
    from studio.core.numbers.ints import split_ints

    def widths(text: str, flag: str) -> tuple[int, ...]:
        try:
            return tuple(split_ints(text))
        except ValueError:
            raise ConfigError(f"{flag} takes whole numbers separated by commas, e.g. 64,32 (not {text!r})") from None

    d = DlrmRequest()
    steps = args.steps
    return DlrmRequest(ranks=args.ranks, tables=args.tables, rows=args.rows, dim=args.dim,
                       bottom=widths(args.bottom, "--bottom") if args.bottom else d.bottom,
                       top=widths(args.top, "--top") if args.top else d.top, batch_size=args.batch_size,
                       steps=steps, warmup_steps=min(d.warmup_steps, max(0, steps - 1)),
                       timeline_steps=max(1, min(d.timeline_steps, steps - d.warmup_steps)), lr=args.lr,
                       seed=args.seed, repeats=args.repeats, port=args.port, device=args.device)


def format_table(out: DlrmResult) -> str:
    lines = []
    for run in out["runs"]:
        lines.append(f"seed {run['seed']}: loss {run['single'][0]:.4f} → {run['single'][-1]:.4f} in one process, "
                     f"{run['hybrid'][0]:.4f} → {run['hybrid'][-1]:.4f} hybrid; largest gap {run['max_gap']:.1e}")
    verdict = "the same training" if out["equal"] else "NOT the same training"
    lines.append(f"every step within {out['loss_tolerance']:g}: {verdict} (Bayes loss of the clicks "
                 f"{out['floor']:.3f}, always-the-mean {out['base']:.3f})")
    lines.append(f"{'process':<12} {'tables':<14} {'tables':>10} {'MLPs':>9} {'all-to-all':>11} {'RSS growth':>11}")
    for m in [out["single_memory"], *out["memory"]]:
        name = "one process" if m["rank"] < 0 else f"rank {m['rank']}"
        held = f"{m['tables'][0]}–{m['tables'][-1]}" if len(m["tables"]) > 1 else str(m["tables"][0])
        lines.append(f"{name:<12} {held:<14} {_mb(m['table_bytes']):>10} {_mb(m['mlp_bytes']):>9} "
                     f"{_mb(m['exchange_bytes']):>11} {_mb(m['rss_growth']):>11}")
    ex = out["exchange"]
    exact = all(b == ex["model"] for b in ex["forward"] + ex["backward"])
    lines.append(f"all-to-all per step, summed over the ranks: {ex['forward'][0]:,} bytes forward, "
                 f"{ex['backward'][0]:,} backward; batch × tables × dim × 4 = {ex['model']:,} "
                 f"({'every step' if exact else 'NOT every step'}); all-reduce {ex['allreduce']:,} bytes per rank")
    shares = "; ".join(f"rank {r}: " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(s.items(), key=lambda kv: -kv[1]))
                       for r, s in enumerate(out["shares"]))
    lines.append(f"step {out['step_ms']['single']:.1f} ms in one process, {out['step_ms']['hybrid']:.1f} ms "
                 f"hybrid ({out['cores']} cores, load {out['load']:.1f}); time: {shares}")
    return "\n".join(lines)


def cmd_dlrm(args: argparse.Namespace) -> int:
    from studio.engine.dlrm.launch import run_dlrm

    request = request_from(args)
    return run_and_print(args, lambda bar: run_dlrm(request, progress=bar), format_table)


def add_parser(sub: Any) -> None:
    d = DlrmRequest()
    p = sub.add_parser("dlrm", help="DLRM hybrid parallelism: tables split (all-to-all), MLPs data-parallel")
    p.add_argument("--ranks", type=int, default=d.ranks, help=f"processes, 2 to {MAX_RANKS} (default {d.ranks})")
    p.add_argument("--tables", type=int, default=d.tables, help=f"embedding tables (default {d.tables})")
    p.add_argument("--rows", type=int, default=d.rows, help=f"rows per table (default {d.rows:,})")
    p.add_argument("--dim", type=int, default=d.dim, help=f"the vectors' dimension (default {d.dim})")
    p.add_argument("--bottom", default="", help="the bottom MLP's hidden widths (default "
                                               f"{','.join(map(str, d.bottom))})")
    p.add_argument("--top", default="", help=f"the top MLP's hidden widths (default {','.join(map(str, d.top))})")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help=f"the global batch (default {d.batch_size})")
    p.add_argument("--steps", type=int, default=d.steps, help=f"training steps (default {d.steps})")
    p.add_argument("--lr", type=float, default=d.lr, help=f"Adagrad's learning rate (default {d.lr:g})")
    p.add_argument("--seed", type=int, default=d.seed, help="the seed of the weights and the clicks (default 0)")
    p.add_argument("--repeats", type=int, default=d.repeats,
                   help="seeds from --seed, each trained both ways (default 1)")
    p.add_argument("--port", type=int, default=0, help="the rendezvous port on 127.0.0.1 (default 0: a free one)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                   help="cpu (gloo) or cuda (one GPU per rank, NCCL) (default cpu)")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_dlrm)
