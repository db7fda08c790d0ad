"""``studio async``: a parameter server and k workers over ``torch.distributed.rpc`` — synchronous rounds against
asynchronous pushes (optionally with the staleness-aware learning rate) and Hogwild in shared memory, with a
straggler made by ``--delays`` (``engine/async_sgd``).

With ``--json`` the last line on stdout is one JSON object (``AsyncResult``): ``rows`` (each ``mode``
sync|async|async-sa|hogwild, ``updates``, ``gradients``, ``seconds``, ``updates_per_s``, ``final_loss``,
``test_acc``, ``curve`` [{update, seconds, loss}], ``staleness`` (histogram counts), ``mean_staleness``,
``worker_updates``), ``workers``, ``delays``, ``batch_size``, ``lr``, ``updates``, ``seconds``, ``port``.
Exit 2 on bad input (a port in use, a bad delay) before any process starts; exit 3 when a process died.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_output_args, run_and_print
from studio.core.contracts.async_sgd import MODES, AsyncResult

COMMANDS = ("async",)


def format_table(out: AsyncResult) -> str:
    delays = ",".join(f"{d:g}" for d in out["delays"])
    lines = [f"{out['workers']} workers, batch {out['batch_size']} each, lr {out['lr']:g}, delays {delays} s",
             f"{'mode':<9} {'updates':>7} {'seconds':>8} {'updates/s':>9} {'loss':>7} {'test acc':>8} "
             f"{'staleness':>9} {'max':>4}  per worker"]
    for r in out["rows"]:
        lines.append(f"{r['mode']:<9} {r['updates']:>7} {r['seconds']:>8.2f} {r['updates_per_s']:>9.1f} "
                     f"{r['final_loss']:>7.3f} {r['test_acc']:>8.1%} {r['mean_staleness']:>9.2f} "
                     f"{r['max_staleness']:>4}  {','.join(str(n) for n in r['worker_updates'])}")
    return "\n".join(lines)


def request_from_args(args: argparse.Namespace) -> Any:
    from studio.core.contracts.async_sgd import AsyncRequest, parse_delays, parse_modes, validate
    from studio.core.errors import ConfigError
    from studio.core.numbers.ints import split_ints

    try:
        widths = tuple(split_ints(args.widths))
    except ValueError:
        raise ConfigError(f"--widths takes whole numbers, e.g. 128 or 256,128 (not {args.widths!r})") from None
    seconds = args.seconds or 0.0
    updates = 0 if args.seconds else args.updates
    request = AsyncRequest(dataset=args.dataset, widths=widths, workers=args.workers, batch_size=args.batch_size,
                           updates=updates, seconds=seconds, lr=args.lr, delays=parse_delays(args.delays),
                           staleness_aware=args.staleness_aware, modes=parse_modes(args.modes), seed=args.seed,
                           port=args.port, device=args.device)
    validate(request)
    return request


def cmd_async(args: argparse.Namespace) -> int:
    from studio.engine.async_sgd.launch import study

    request = request_from_args(args)
    return run_and_print(args, lambda bar: study(request, bar), format_table)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("async", help="a parameter server with asynchronous SGD: sync vs async vs Hogwild, staleness")
    p.add_argument("--workers", type=int, default=3, help="workers (default 3)")
    p.add_argument("--delays", default="", help="seconds each worker sleeps per gradient, e.g. 0,0,0.05 (a straggler)")
    p.add_argument("--modes", default="sync,async,hogwild", help=f"modes to run, of {','.join(MODES)} "
                                                                  "(default sync,async,hogwild)")
    p.add_argument("--staleness-aware", action="store_true",
                   help="also run async with the learning rate divided by each gradient's staleness (async-sa)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--updates", type=int, default=300, help="applied updates per mode (default 300)")
    budget.add_argument("--seconds", type=float, default=None, help="wall-clock seconds per mode instead of updates")
    p.add_argument("--batch-size", type=int, default=32, help="mini-batch per worker (default 32)")
    p.add_argument("--lr", type=float, default=0.05, help="learning rate of the server's SGD (default 0.05)")
    p.add_argument("--widths", default="128", help="the MLP's hidden layers, e.g. 256,128 (default 128)")
    p.add_argument("--dataset", default="fashion_mnist_small", help="a classification dataset (default "
                                                                     "fashion_mnist_small)")
    p.add_argument("--seed", type=int, default=0, help="initial weights and mini-batches (default 0)")
    p.add_argument("--port", type=int, default=0, help="rpc port on 127.0.0.1 (default 0: a free one)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="cuda: the server on cuda:0")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_async)
