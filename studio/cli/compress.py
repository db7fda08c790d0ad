"""``studio compress``: prune and/or quantise a trained run, or sweep accuracy against sparsity.

With ``--json`` the last line on stdout is one JSON object: ``id, run_id, before, after, size_ratio,
accuracy_change, method, path, seconds`` (before/after: ``test_acc, bytes, gzip_bytes, params, nonzero_params,
sparsity, latency_ms, batch256_ms``); with ``--sweep``: ``run_id, points`` (each ``target, sparsity,
test_acc``), ``path``, ``seconds``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from studio.cli._shared import StderrProgress, add_output_args, run_dir_of
from studio.core.contracts.compression import QUANTIZE, CompressResult

COMMANDS = ("compress",)


def _kb(n: int) -> str:
    return f"{n / 1024:,.0f} KiB"


def format_table(entry: CompressResult) -> str:
    """Before and after, side by side."""
    b, a = entry["before"], entry["after"]
    rows = [("test accuracy", f"{b['test_acc']:.4f}", f"{a['test_acc']:.4f}"),
            ("size on disk", _kb(b["bytes"]), _kb(a["bytes"])),
            ("size gzipped", _kb(b["gzip_bytes"]), _kb(a["gzip_bytes"])),
            ("parameters", f"{b['params']:,}", f"{a['params']:,}"),
            ("non-zero", f"{b['nonzero_params']:,}", f"{a['nonzero_params']:,}"),
            ("weight sparsity", f"{b['sparsity']:.1%}", f"{a['sparsity']:.1%}"),
            ("latency, 1 example", f"{b['latency_ms']:.3f} ms", f"{a['latency_ms']:.3f} ms"),
            ("latency, batch 256", f"{b['batch256_ms']:.2f} ms", f"{a['batch256_ms']:.2f} ms")]
    lines = [f"{'':<20} {'before':>14} {'after':>14}"]
    lines += [f"{name:<20} {x:>14} {y:>14}" for name, x, y in rows]
    return "\n".join(lines)


def cmd_compress(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.core.errors import ConfigError
    from studio.engine.tasks import compression

    run_dir = run_dir_of(args.run)
    bar = StderrProgress(args.quiet)
    try:
        if args.sweep:
            if args.quantize != "none":
                raise ConfigError("--sweep prunes only; drop --quantize")
            sweep = compression.sparsity_sweep(run_dir, structured=args.structured, fine_tune_steps=args.fine_tune,
                                               checkpoint=args.checkpoint, progress=bar)
        else:
            if args.prune == 0 and args.quantize == "none":
                raise ConfigError("nothing to do: give --prune FRACTION and/or --quantize int8 (or --sweep)")
            out = compression.compress_run(run_dir, args.prune, args.structured, args.quantize, args.fine_tune,
                                           checkpoint=args.checkpoint, progress=bar)
    finally:
        bar.close()
    if args.sweep:
        if args.json:
            emit_json(sweep)
            return 0
        print(f"{'sparsity':>9} {'test acc':>9}")
        for p in sweep["points"]:
            print(f"{p['sparsity']:>9.1%} {p['test_acc']:>9.4f}")
    elif args.json:
        emit_json(out)
    else:
        print(format_table(out))
        print(f"{out['run_id']} → {out['id']}: size ÷{out['size_ratio']:.2f}, accuracy "
              f"{out['accuracy_change'] * 100:+.2f} points → {out['path']}", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("compress", help="prune and/or quantise a trained run (or --sweep accuracy vs sparsity)")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--prune", type=float, default=0.0, metavar="FRACTION",
                   help="magnitude-prune this fraction of the weights, e.g. 0.5 (default 0: none)")
    p.add_argument("--structured", action="store_true",
                   help="prune whole neurons/channels per layer (L2 norm) instead of single weights globally")
    p.add_argument("--fine-tune", type=int, default=0, metavar="STEPS",
                   help="train this many steps after pruning, pruned weights held at zero (default 0)")
    p.add_argument("--quantize", choices=QUANTIZE, default="none",
                   help="int8: static with calibration for conv models, dynamic otherwise (or name one)")
    p.add_argument("--sweep", action="store_true", help="test accuracy at sparsities 0–95 %% instead")
    p.add_argument("--checkpoint", help="final (default), initial, a step number or a .pt file")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_compress)
