"""``studio allreduce``: ring all-reduce against a central server, on p CPU processes (gloo; NCCL with
``--device cuda``), with torch's own ``all_reduce`` as the reference (``engine/allreduce``).

Without ``--json``: a table (algorithm, p, N, bytes each rank sent ÷ N beside the cost model — 2(p−1)/p for the
ring, p−1 at the server's rank 0 —, wall and CPU time of the slowest rank, the error against the exact sum). With
``--json`` the last line on stdout is one JSON object (``core/contracts/allreduce.AllreduceResult``): ``rows``
(each ``algorithm``, ``ranks``, ``size``, per rank ``sent``, ``received``, ``model``, ``wall_s``, ``cpu_s``, and
``max_error``), ``timelines`` (per algorithm every rank's intervals at ``timeline_ranks`` and ``timeline_size``),
``load``, … Exit 2 on bad input (before any process starts), 3 when a rank died.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, run_and_print
from studio.core.contracts.allreduce import ALGORITHMS, MAX_RANKS, AllreduceRequest, AllreduceResult, size_text

COMMANDS = ("allreduce",)


def request_from(args: argparse.Namespace) -> AllreduceRequest:
    """The request the flags describe (checked in full by the engine before any process starts)."""
    from studio.core.contracts.allreduce import parse_size, parse_sizes
    from studio.core.errors import ConfigError
    from studio.core.numbers.ints import split_ints

    try:
        ranks = tuple(split_ints(args.ranks))
    except ValueError:
        raise ConfigError(f"--ranks takes process counts separated by commas, e.g. 2,4,8 (not {args.ranks!r})") \
            from None
    algorithms = tuple(a.strip().lower() for a in args.algorithms.split(",") if a.strip())
    return AllreduceRequest(ranks=ranks, sizes=parse_sizes(args.size), algorithms=algorithms, repeats=args.repeats,
                            timeline_ranks=args.timeline_ranks or 0,
                            timeline_size=parse_size(args.timeline_size) if args.timeline_size else 0,
                            seed=args.seed, port=args.port, device=args.device)


def format_table(out: AllreduceResult) -> str:
    lines = [f"{'algorithm':<9} {'p':>2} {'N':>6} {'sent/N':>7} {'model':>6} {'rank 0':>7} {'wall ms':>8} "
             f"{'CPU ms':>7} {'error':>6}"]
    for r in out["rows"]:
        p, n = r["ranks"], r["size"]
        if r["sent"] is not None and r["model"] is not None:
            others = r["sent"][1:] or r["sent"]
            sent, model, first = f"{max(others) / n:.3f}", f"{max(r['model'][1:] or r['model']) / n:.3f}", \
                f"{r['sent'][0] / n:.3f}"
        else:
            sent = model = first = "—"
        lines.append(f"{r['algorithm']:<9} {p:>2} {size_text(n):>6} {sent:>7} {model:>6} {first:>7} "
                     f"{1000 * max(r['wall_s']):>8.1f} {1000 * max(r['cpu_s']):>7.1f} {r['max_error']:>6g}")
    lines.append(f"sent/N: the most any rank but 0 sent, rank 0: what rank 0 sent (the server's), both ÷ N; model: "
                 f"2(p−1)/p for the ring, 1 for a server's worker; times: the slowest rank, median of "
                 f"{out['repeats']} runs; {out['cores']} cores, load {out['load']:.1f}")
    lines += [f"note: {n}" for n in out.get("notes", [])]
    return "\n".join(lines)


def cmd_allreduce(args: argparse.Namespace) -> int:
    from studio.engine.allreduce.launch import run_allreduce

    request = request_from(args)
    return run_and_print(args, lambda bar: run_allreduce(request, progress=bar), format_table)


def add_parser(sub: Any) -> None:
    d = AllreduceRequest()
    p = sub.add_parser("allreduce", help="ring all-reduce vs a central server: bytes and time per rank, p processes")
    p.add_argument("--ranks", default=",".join(map(str, d.ranks)),
                   help=f"process counts p, 2 to {MAX_RANKS}, e.g. 2,4,8 (default {','.join(map(str, d.ranks))})")
    p.add_argument("--size", default=",".join(size_text(n) for n in d.sizes),
                   help="the vector's sizes in bytes, with K or M, e.g. 1M,16M (default "
                        f"{','.join(size_text(n) for n in d.sizes)})")
    p.add_argument("--algorithms", default=",".join(d.algorithms),
                   help=f"of {', '.join(ALGORITHMS)} (default: all three)")
    p.add_argument("--repeats", type=int, default=d.repeats, help=f"timed runs of each, after a warm-up (default "
                                                                   f"{d.repeats})")
    p.add_argument("--timeline-ranks", type=int, default=0, help="the p whose timeline is kept (default: the largest)")
    p.add_argument("--timeline-size", default="", help="the size whose timeline is kept (default: the largest)")
    p.add_argument("--seed", type=int, default=d.seed, help="the seed of the vectors (default 0)")
    p.add_argument("--port", type=int, default=0, help="the rendezvous port on 127.0.0.1 (default 0: a free one)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                   help="cpu (gloo) or cuda (one GPU per rank, NCCL) (default cpu)")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_allreduce)
