"""``studio landscape`` and ``studio sharpness``: loss landscapes and curvature of a saved run, headless.

With ``--json`` the last line on stdout is one JSON object: for landscape ``path, kind, resolution,
center_loss, min_loss, max_loss, seconds``; for sharpness ``top_eigenvalues, trace, eps_sharpness,
seconds`` (and a few more keys each). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from studio.core.vocab import LANDSCAPE_KINDS as KINDS
from studio.core.vocab import SPLITS, LandscapeKind

COMMANDS = ("landscape", "sharpness")


def run_dir_of(id_or_dir: str) -> Path:
    """A run directory from a path (any run dir with config.toml) or a run id / id prefix in the store."""
    from studio.core.runs.store import RunStore, is_run_dir

    path = Path(id_or_dir)
    if is_run_dir(path):
        return path

    store = RunStore()
    try:
        return store.resolve(id_or_dir).dir
    finally:
        store.close()


class StderrProgress:
    """``[####      ] 40% text`` on a terminal, a line per tenth otherwise."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet, self.tty, self.last = quiet, sys.stderr.isatty(), -1

    def __call__(self, fraction: float, text: str) -> None:
        if self.quiet:
            return
        pct = int(fraction * 100)
        if self.tty:
            sys.stderr.write(f"\r[{'#' * (pct * 30 // 100):<30}] {pct:3d}% {text:<30}")
            sys.stderr.flush()
        elif pct // 10 != self.last:
            self.last = pct // 10
            print(f"{pct:3d}% {text}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def cmd_landscape(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.landscape import compute_landscape

    run_dir = run_dir_of(args.run)
    bar = StderrProgress(args.quiet)
    try:
        result, path = compute_landscape(
            run_dir, args.kind, args.resolution, checkpoint=args.checkpoint,
            other_run=run_dir_of(args.other) if args.other else None, samples=args.samples, split=args.split,
            span=args.span, seed=args.seed, include_bias_bn=args.include_bias_bn, device=args.device,
            fast=not args.sequential, progress=bar)
    finally:
        bar.close()
    out: dict[str, Any] = {"path": str(path), **result.summary(), "seconds": result.meta["seconds"],
                           "run_id": run_dir.name}
    if result.meta.get("explained_variance"):
        out["explained_variance"] = result.meta["explained_variance"]
    if args.json:
        emit_json(out)
    else:
        size = f"{out['resolution']}" if result.kind == LandscapeKind.LINE else f"{out['resolution']}×{len(result.y)}"
        print(f"{result.kind} landscape of {run_dir.name}: {size} points, centre loss {out['center_loss']:.4f}, "
              f"min {out['min_loss']:.4f}, max {out['max_loss']:.4f} ({out['seconds']:.1f} s) → {path}",
              file=sys.stderr)
    return 0


def cmd_sharpness(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.landscape import compute_sharpness

    run_dir = run_dir_of(args.run)
    bar = StderrProgress(args.quiet)
    try:
        result = compute_sharpness(run_dir, checkpoint=args.checkpoint, k=args.k, samples=args.samples,
                                   split=args.split, trace_samples=args.trace_samples, eps=args.eps,
                                   seed=args.seed, device=args.device, method=args.method, progress=bar)
    finally:
        bar.close()
    if args.json:
        emit_json(result)
    else:
        eigs = ", ".join(f"{v:.4g}" for v in result["top_eigenvalues"])
        print(f"sharpness of {run_dir.name} ({result['checkpoint']}): top eigenvalues {eigs}; trace "
              f"{result['trace']:.4g} ± {result['trace_stderr']:.2g}; ε-sharpness {result['eps_sharpness']:.4g}% "
              f"(ε = {result['eps']:g}) ({result['seconds']:.1f} s)", file=sys.stderr)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--checkpoint", help="final (default), initial, a step number or a .pt file")
    p.add_argument("--split", choices=SPLITS, default="train", help="the data to evaluate on (default train)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data subset and the random directions")
    p.add_argument("--device", default="auto", help="auto (a GPU when there is one), cpu or cuda")
    p.add_argument("--json", action="store_true", help="print the result as one JSON line on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_parser(sub: Any) -> None:
    land = sub.add_parser("landscape", help="compute a loss landscape of a saved run (1d, 2d or trajectory)")
    _common(land)
    land.add_argument("--kind", choices=KINDS, default=LandscapeKind.SURFACE.value)
    land.add_argument("--resolution", type=int, help="points per axis (default 41)")
    land.add_argument("--samples", type=int, default=2000, help="examples to evaluate on (0: the whole split)")
    land.add_argument("--span", type=float, default=1.0, help="2d: the grid covers [-span, span]² (default 1)")
    land.add_argument("--other", metavar="RUN", help="1d: interpolate from this run to another run's final weights")
    land.add_argument("--include-bias-bn", action="store_true", help="also move biases and BatchNorm parameters")
    land.add_argument("--sequential", action="store_true", help="use the plain one-point-at-a-time evaluator")
    land.set_defaults(func=cmd_landscape)
    sharp = sub.add_parser("sharpness", help="top Hessian eigenvalues, Hessian trace and ε-sharpness of a run")
    _common(sharp)
    sharp.add_argument("--k", type=int, default=3, help="how many top eigenvalues (default 3)")
    sharp.add_argument("--samples", type=int, default=1000, help="examples to evaluate on (0: the whole split)")
    sharp.add_argument("--trace-samples", type=int, default=64, help="Hutchinson probes (default 64)")
    sharp.add_argument("--eps", type=float, default=1e-3, help="ε of Keskar's sharpness box (default 1e-3)")
    sharp.add_argument("--method", choices=("lanczos", "power"), default="lanczos")
    sharp.set_defaults(func=cmd_sharpness)
