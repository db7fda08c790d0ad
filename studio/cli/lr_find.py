"""``studio lr-find``: the learning-rate range test (Smith 2017) on the config's model, data and optimizer — an
exponential ramp of the learning rate over a few hundred steps on a fresh model (nothing is kept), and the
suggested rate: the steepest descent of the smoothed loss, and the minimum ÷ 10. ``--batch-size`` also finds the
largest batch that fits in the GPU's memory (a config that trains on CUDA). With ``--json`` the last stdout line
is one JSON object (the ramp's rates and losses, the suggestion)."""

from __future__ import annotations

import argparse

from studio.cli._shared import add_config_args, add_output_args, load_config, run_and_print

COMMANDS = ("lr-find",)


def cmd_lr_find(args: argparse.Namespace) -> int:
    from studio.core.contracts.lr_find import LrFindRequest, suggestion_line
    from studio.engine.tasks.lr_find import run

    request = LrFindRequest(load_config(args).to_toml(), args.start, args.end, args.steps, args.batch_size)
    request.validate()

    def table(r: dict) -> str:
        lines = [suggestion_line(r),  # type: ignore[arg-type]  # an LrFindResult
                 f"{r['steps']} steps of batch {r['batch_size']} on {r['device']}, lr {r['lrs'][0]:.2g} … "
                 f"{r['lrs'][-1]:.2g}" + (" (stopped: the loss blew up)" if r["stopped_early"] else "")]
        if r["max_batch_note"]:
            lines.append(f"largest batch: {r['max_batch_note']}")
        return "\n".join(lines)

    return run_and_print(args, lambda progress: run(request, progress), table)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lr-find", help="the learning-rate range test: the loss along a ramp of rates, and the "
                                       "suggested rate")
    add_config_args(p)
    p.add_argument("--start", type=float, default=1e-7, help="the ramp's first learning rate (default 1e-7)")
    p.add_argument("--end", type=float, default=10.0, help="its last (default 10; it stops once the loss blows up)")
    p.add_argument("--steps", type=int, default=200, help="steps of the ramp (default 200)")
    p.add_argument("--batch-size", action="store_true",
                   help="also find the largest batch that fits in the GPU's memory (CUDA configs)")
    add_output_args(p, quiet=True, what="the ramp and the suggestion")
    p.set_defaults(func=cmd_lr_find)
