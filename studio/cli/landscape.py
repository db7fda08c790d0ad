"""``studio landscape`` and ``studio sharpness``: loss landscapes and curvature of a saved run, headless.

With ``--json`` the last line on stdout is one JSON object: for landscape ``path, kind, resolution,
center_loss, min_loss, max_loss, seconds`` (with ``--record``: ``recorded``, the file written); for sharpness
``top_eigenvalues, trace, eps_sharpness, seconds`` (and a few more keys each). Progress goes to stderr.

``landscape --record FILE`` also records the 2-D or trajectory landscape just computed for slides, as the Landscape
tab's Record… does (``gui/plots/trajectory_reel.py``, through ``cli/_record.py``): the optimizer's path drawn one
checkpoint further each frame on the contour (MP4, GIF), or a PNG or SVG still, at ``--size``; ``--log-scale``
draws log₁₀ of the loss, as the tab's Log scale. The tab's reel has one style: no ``--style`` here.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from studio.cli._record import FORMATS, add_record_args
from studio.cli._shared import StderrProgress, add_output_args, run_dir_of
from studio.core.contracts import landscape as contract
from studio.core.vocab import LandscapeKind

COMMANDS = ("landscape", "sharpness")
KINDS = contract.KINDS
SPLITS = contract.SPLITS


def cmd_landscape(args: argparse.Namespace) -> int:
    from studio.cli._record import record_into
    from studio.cli._shared import emit_json

    request = landscape_request(args)  # the limits first: a bad request costs no run lookup and no torch import
    record_size = check_landscape_record(args)
    from studio.engine.tasks.landscape import landscape_of

    run_dir = run_dir_of(args.run)
    if args.other:
        request = dataclasses.replace(request, other_run=str(run_dir_of(args.other)))
    bar = StderrProgress(args.quiet)
    try:
        result, path = landscape_of(run_dir, request, progress=bar)
    finally:
        bar.close()
    out: contract.LandscapeReport = {"path": str(path), **result.summary(), "seconds": result.meta["seconds"],
                                     "run_id": run_dir.name}
    if result.meta.get("explained_variance"):
        out["explained_variance"] = result.meta["explained_variance"]
    failed = None
    if args.record:  # the landscape is saved and reported all the same
        failed = record_into(out, lambda: landscape_reel(result, args.log_scale), args.record, record_size)
    if args.json:
        emit_json(out)
    else:
        rows = result.y
        size = f"{out['resolution']}" if rows is None or result.kind == LandscapeKind.LINE else (
            f"{out['resolution']}×{len(rows)}")
        print(f"{result.kind} landscape of {run_dir.name}: {size} points, centre loss {out['center_loss']:.4f}, "
              f"min {out['min_loss']:.4f}, max {out['max_loss']:.4f} ({out['seconds']:.1f} s) → {path}",
              file=sys.stderr)
        if "recorded" in out:
            print(f"recorded: {out['recorded']}", file=sys.stderr)
    if failed is not None:
        raise failed
    return 0


def check_landscape_record(args: argparse.Namespace) -> tuple[int, int]:
    """``--record``'s size, before any computing; ConfigError in one sentence for a kind the Landscape tab cannot
    record (1-D) or ``--log-scale`` without ``--record``."""
    from studio.cli._record import check_recording
    from studio.core.errors import ConfigError

    if args.log_scale and not args.record:
        raise ConfigError("--log-scale goes with --record FILE")
    size = check_recording(args.record, args.size)
    if args.record:
        from studio.gui.plots.trajectory_reel import LINE_REFUSAL, RECORDABLE

        if args.kind not in RECORDABLE:
            raise ConfigError(f"{LINE_REFUSAL}: --record takes --kind {' or '.join(RECORDABLE)}")
    return size


def landscape_reel(result: Any, log: bool) -> Any:
    """The landscape as the Landscape tab records it: its contour, the path one checkpoint further each frame."""
    from studio.gui.plots.trajectory_reel import TrajectoryReel

    return TrajectoryReel(result, log)


def cmd_sharpness(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json
    from studio.engine.tasks.landscape import sharpness_of

    request = sharpness_request(args)
    run_dir = run_dir_of(args.run)
    bar = StderrProgress(args.quiet)
    try:
        result = sharpness_of(run_dir, request, progress=bar)
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


def landscape_request(args: argparse.Namespace) -> contract.LandscapeRequest:
    """The command line's landscape request, validated (a ConfigError: one line, exit 2)."""
    return contract.LandscapeRequest(
        kind=args.kind, resolution=args.resolution, checkpoint=args.checkpoint, samples=args.samples,
        split=args.split, span=args.span, seed=args.seed, include_bias_bn=args.include_bias_bn, device=args.device,
        fast=not args.sequential).validate()


def sharpness_request(args: argparse.Namespace) -> contract.SharpnessRequest:
    """The command line's sharpness request, validated (a ConfigError: one line, exit 2)."""
    return contract.SharpnessRequest(
        checkpoint=args.checkpoint, k=args.k, samples=args.samples, split=args.split,
        trace_samples=args.trace_samples, eps=args.eps, seed=args.seed, device=args.device,
        method=args.method).validate()


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--checkpoint", help="final (default), initial, a step number or a .pt file")
    p.add_argument("--split", choices=SPLITS, default="train", help="the data to evaluate on (default train)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data subset and the random directions")
    p.add_argument("--device", default="auto", help="auto (a GPU when there is one), cpu or cuda")
    add_output_args(p, quiet=True)


def add_parser(sub: Any) -> None:
    c = contract
    land = sub.add_parser("landscape", help="compute a loss landscape of a saved run (1d, 2d or trajectory); "
                                            "--record draws it for slides")
    _common(land)
    land.add_argument("--kind", choices=KINDS, default=LandscapeKind.SURFACE.value)
    land.add_argument("--resolution", type=int, help=f"points per axis, {c.RESOLUTION_MIN}–{c.RESOLUTION_MAX} "
                      f"(default {c.DEFAULT_RESOLUTION})")
    land.add_argument("--samples", type=int, default=c.DEFAULT_SAMPLES,
                      help=f"examples to evaluate on, up to {c.SAMPLES_MAX:,} (0: the whole split)")
    land.add_argument("--span", type=float, default=c.DEFAULT_SPAN,
                      help=f"2d: the grid covers [-span, span]², span {c.SPAN_MIN:g}–{c.SPAN_MAX:g} (default 1)")
    land.add_argument("--other", metavar="RUN", help="1d: interpolate from this run to another run's final weights")
    land.add_argument("--include-bias-bn", action="store_true", help="also move biases and BatchNorm parameters")
    land.add_argument("--sequential", action="store_true", help="use the plain one-point-at-a-time evaluator")
    add_record_args(land, "also record the 2d or trajectory landscape: " + FORMATS.format(
        what="the optimizer's path drawn one checkpoint further each frame on the contour") + ", as the Landscape "
        "view's Record… does", style=False)
    land.add_argument("--log-scale", action="store_true",
                      help="with --record: draw log₁₀ of the loss (the view's Log scale)")
    land.set_defaults(func=cmd_landscape)
    sharp = sub.add_parser("sharpness", help="top Hessian eigenvalues, Hessian trace and ε-sharpness of a run")
    _common(sharp)
    sharp.add_argument("--k", type=int, default=c.DEFAULT_K,
                       help=f"how many top eigenvalues, {c.K_MIN}–{c.K_MAX} (default {c.DEFAULT_K})")
    sharp.add_argument("--samples", type=int, default=c.DEFAULT_SHARPNESS_SAMPLES,
                       help=f"examples to evaluate on, up to {c.SAMPLES_MAX:,} (0: the whole split)")
    sharp.add_argument("--trace-samples", type=int, default=c.DEFAULT_TRACE_SAMPLES,
                       help=f"Hutchinson probes, {c.TRACE_SAMPLES_MIN}–{c.TRACE_SAMPLES_MAX:,} "
                       f"(default {c.DEFAULT_TRACE_SAMPLES})")
    sharp.add_argument("--eps", type=float, default=c.DEFAULT_EPS,
                       help=f"ε of Keskar's sharpness box, above 0 (default {c.DEFAULT_EPS:g})")
    sharp.add_argument("--method", choices=c.METHODS, default="lanczos")
    sharp.set_defaults(func=cmd_sharpness)
