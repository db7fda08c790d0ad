"""``studio noise-scale RUN``: the gradient noise scale B_simple of a run's model at a checkpoint (McCandlish et
al. 2018), its critical batch size's estimate: for a model trained elsewhere and attached, or any Studio run
(engine/tasks/noise_scale.py).

With ``--json`` the last line on stdout is one JSON object: run_id, checkpoint, b_simple, g2, trace, batch_size,
small_batch, repeats, seconds.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("noise-scale",)


def cmd_noise_scale(args: argparse.Namespace) -> int:
    from studio.cli._shared import run_and_print, run_dir_of
    from studio.core.contracts.noise_scale import NoiseScaleRequest, critical_batch_line
    from studio.engine.tasks.noise_scale import run

    request = NoiseScaleRequest(str(run_dir_of(args.run)), args.batch, args.small_batch, args.repeats,
                                args.checkpoint, args.seed, args.device)
    request.validate()
    return run_and_print(args, lambda progress: run(request, progress), critical_batch_line)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("noise-scale", help="a run's gradient noise scale: its model's critical batch size")
    p.add_argument("run", metavar="RUN_ID_OR_DIR", help="a run id (or unique prefix) or a run directory")
    p.add_argument("--checkpoint", default="final", help="final (default), initial, a step number or a .pt file")
    p.add_argument("--batch", type=int, default=0, metavar="N",
                   help="the big batch (default: the data's size, at most 1024; a multiple of --small-batch)")
    p.add_argument("--small-batch", type=int, default=8, metavar="N", help="the chunks' size (default 8)")
    p.add_argument("--repeats", type=int, default=20, metavar="N", help="batches averaged (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto", help="auto, cpu or cuda")
    add_output_args(p, quiet=True, what="the measurement")
    p.set_defaults(func=cmd_noise_scale)
