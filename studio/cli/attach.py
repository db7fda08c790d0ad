"""``studio attach RUN --model FILE.py:CLASS --weights FILE.pt --data FILE.pt``: a model trained elsewhere, attached
to a run Studio did not train (a ``studio.track`` run, an imported TensorBoard run; ``new`` makes one), so the
Landscape, Sharpness, Evaluation and noise-scale analyses work on it (engine/attach.py). Attaching again adds the
weights as a later checkpoint (a trajectory of saved points).

With ``--json`` the last line on stdout is one JSON object: run_id, checkpoint, step, class, samples.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from studio.cli._shared import add_output_args

COMMANDS = ("attach",)


def cmd_attach(args: argparse.Namespace) -> int:
    from studio.cli._shared import emit_json, run_dir_of

    if args.run == "new":
        from studio.core.runs.store import RunStore
        from studio.core.runs.tracked import ATTACH, create_external_run

        store = RunStore()
        run_dir = create_external_run(store, name=args.name or Path(args.weights).stem, source=ATTACH).dir
        store.set_status(run_dir.name, "finished", "a model trained outside Studio, attached")
    else:
        run_dir = run_dir_of(args.run)
    from studio.engine.attach import attach

    out = attach(run_dir, args.model, Path(args.weights), Path(args.data) if args.data else None, args.init,
                 args.step)
    if args.json:
        emit_json(out)
    else:
        print(f"attached {out['class']} to run {out['run_id']} (checkpoint at step {out['step']}); "
              f"`studio noise-scale {out['run_id']}` measures its critical batch size", file=sys.stderr)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("attach", help="attach a model trained elsewhere (its code, weights and data) to a run, for "
                                      "Studio's analyses")
    p.add_argument("run", metavar="RUN", help="a run id (or unique prefix) or run directory of a run Studio did not "
                                              "train; `new` makes one")
    p.add_argument("--model", required=True, metavar="FILE.py:CLASS", help="the model's class and the file it is in")
    p.add_argument("--weights", required=True, metavar="FILE.pt", help="its state_dict (torch.save), or a "
                                                                       "checkpoint holding one")
    p.add_argument("--data", metavar="FILE.pt", help="a batch of its data: a tuple (inputs, targets) saved with "
                                                     "torch.save, or an .npz with x and y")
    p.add_argument("--init", default="{}", metavar="JSON", help="the arguments the class is built with, as a JSON "
                                                                "object (default: none)")
    p.add_argument("--step", type=int, metavar="N", help="the training step of these weights (default: after the "
                                                         "run's last checkpoint)")
    p.add_argument("--name", help="the new run's name (with RUN = new)")
    add_output_args(p, what="what was attached")
    p.set_defaults(func=cmd_attach)
