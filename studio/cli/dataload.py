"""``studio dataload FOLDER | --dataset NAME [--set data.KEY=VALUE] | --config FILE``: is the input pipeline the
bottleneck? A DataLoader that decodes the image files per item (a dataset that is code, ``python`` or ``hf_disk``,
its own items, with the settings ``--set data.…`` or ``--config``'s [data] give), timed at each worker count
(pin_memory and persistent workers on and off as asked), beside Studio's device-resident path; per configuration
samples/s and each step split into waiting for data and compute, then a verdict in plain words
(``engine/dataload``).

With ``--json`` the last line on stdout is one JSON object: ``rows`` (each ``kind`` loader|device, ``label``,
``workers``, ``pin_memory``, ``persistent``, ``samples_per_s``, ``speedup``, ``step_ms``, ``wait_ms``,
``compute_ms``, ``wait_share``, ``epoch_start_ms``, ``gpu_util``, …), ``verdict``, ``bottleneck``, ``images``,
``skipped``, ``shape``, ``device``, ``cores``, ``start_method``, ``preload_s``, ``pin_memory``, ``gpu``, ``notes``.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.cli._shared import add_config_args, add_output_args, run_and_print
from studio.core.contracts.dataload import DataloadRequest, DataloadResult

COMMANDS = ("dataload",)


def _flag(value: bool | None, words: str = "yes") -> str:
    return "n/a" if value is None else words if value else "no"


def format_table(out: DataloadResult) -> str:
    lines = [f"{'configuration':<26} {'samples/s':>10} {'×w=0':>6} {'step ms':>8} {'wait ms':>8} {'compute':>8} "
             f"{'waiting':>8} {'epoch start':>11} {'cores':>5} {'GPU':>5}"]
    for r in out["rows"]:
        gpu = f"{r['gpu_util']:.0f} %" if r.get("gpu_util") is not None else "—"
        lines.append(f"{r['label']:<26} {r['samples_per_s']:>10,.0f} {r['speedup']:>5.2f}× {r['step_ms']:>8.2f} "
                     f"{r['wait_ms']:>8.2f} {r['compute_ms']:>8.2f} {r['wait_share']:>7.0%} "
                     f"{r['epoch_start_ms']:>8.0f} ms {r['cpu_cores']:>5.1f} {gpu:>5}")
    lines.append("")
    lines.append(f"{out['images']:,} images {'×'.join(str(s) for s in out['shape'])} in {out['classes']} classes "
                 f"from {out['folder']}; {out['model']}, batch {out['batch_size']}, {out['steps']} steps over "
                 f"{out['epochs']} epochs per configuration; {out['device']}, {out['cores']} cores, workers start by "
                 f"{out['start_method']}; decoding once took {out['preload_s']:.1f} s ({out['decode_ms']:.2f} ms an "
                 f"image); pin_memory: {out['pin_memory']}.")
    for note in out["notes"] + ([out["gpu"]] if out["gpu"] else []):
        lines.append(f"note: {note}")
    lines.append("")
    lines.append(f"Verdict: {out['verdict']}")
    return "\n".join(lines)


def data_settings(args: argparse.Namespace) -> tuple[str, dict[str, Any] | None]:
    """The dataset to measure and, for one a DataLoader reads (``python``, ``hf_disk``: tagged ``loader``), its
    settings: ``--config``'s [data] with ``--dataset`` as its name and each ``--set data.KEY=VALUE`` applied
    (None: no settings given, or a dataset whose images are measured as files)."""
    from studio.core.config import RunConfig
    from studio.core.datasets import DATASETS
    from studio.core.errors import ConfigError

    sets = list(getattr(args, "set", None) or [])
    config_file = getattr(args, "config", None)
    if not sets and not config_file:
        return args.dataset or "", None
    if args.folder:
        raise ConfigError("a folder has no dataset settings: drop --config/--set, or measure --dataset NAME")
    other = next((item for item in sets if not item.strip().startswith("data.")), None)
    if other is not None:
        raise ConfigError(f"studio dataload reads only the dataset's settings (data.KEY=VALUE); got --set {other}")
    base = RunConfig.load(config_file) if config_file else RunConfig()
    data = base.with_overrides([f"data.name={args.dataset}"] * bool(args.dataset) + sets).data
    return data.name, dict(data.params) if "loader" in DATASETS.get(data.name).tags else None


def request_from(args: argparse.Namespace) -> DataloadRequest:
    from studio.core.contracts.dataload import validate
    from studio.core.errors import ConfigError

    if args.folder and args.dataset:
        raise ConfigError("name a folder or --dataset NAME, not both")
    dataset, data_params = data_settings(args)
    size = None
    if args.size:
        from studio.core.numbers.ints import split_ints

        try:
            hw = split_ints(args.size)
        except ValueError:
            hw = []
        if len(hw) not in (1, 2):
            raise ConfigError(f"--size is HEIGHTxWIDTH or one side, e.g. 32x32 (not {args.size!r})")
        size = (hw[0], hw[-1])
    return validate(DataloadRequest(
        folder=args.folder or "", dataset=dataset, data_params=data_params, workers=args.workers,
        pin_memory=args.pin_memory, persistent=args.persistent, batch_size=args.batch_size,
        prefetch_factor=args.prefetch_factor, steps=args.steps, epochs=args.epochs, seconds=args.seconds,
        model=args.model, size=size, limit=args.limit, device=args.device, threads=args.threads,
        device_resident=not args.no_device_resident))


def cmd_dataload(args: argparse.Namespace) -> int:
    from studio.engine.dataload.sweep import run_sweep

    request = request_from(args)
    return run_and_print(args, lambda bar: run_sweep(request, progress=bar), format_table)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("dataload", help="is data loading the bottleneck? DataLoader workers vs the device-resident "
                                        "path, each step split into waiting for data and compute")
    p.add_argument("folder", nargs="?", help="a folder of images in class subfolders")
    p.add_argument("--dataset", help="a dataset by name instead (its import folder, or its images written as PNGs; "
                                     "a python or hf_disk dataset takes its settings from --set data.KEY=VALUE)")
    add_config_args(p, example="data.path=my_data.py",
                    config_help="a run config TOML file whose [data] is measured (its dataset and settings: a "
                                "python or hf_disk dataset is read by its DataLoader)")
    p.add_argument("--workers", default="0,1,2,4", help="DataLoader worker counts to compare (default 0,1,2,4)")
    p.add_argument("--pin-memory", action="store_true", help="also measure pin_memory=True (CUDA only; n/a on CPU)")
    p.add_argument("--persistent", action="store_true",
                   help="also measure persistent_workers=True (workers kept between epochs)")
    p.add_argument("--batch-size", type=int, default=64, help="samples per step (default 64)")
    p.add_argument("--prefetch-factor", type=int, default=2, help="batches each worker loads ahead (default 2)")
    p.add_argument("--steps", type=int, default=60, help="training steps per configuration (default 60)")
    p.add_argument("--epochs", type=int, default=2,
                   help="epochs the steps are spread over, so epoch starts are measured (default 2)")
    p.add_argument("--seconds", type=float, default=0.0, help="at most this long per configuration (default: no cap)")
    p.add_argument("--model", default="mlp", help="the model a step trains (default: a small MLP; studio list models)")
    p.add_argument("--size", help="resize the images to HEIGHTxWIDTH (default: their most common size, at most 64)")
    p.add_argument("--limit", type=int, default=10_000, help="use at most this many images (default 10000)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"), help="where to train (default auto)")
    p.add_argument("--threads", type=int, default=1, help="torch threads of the training process on the CPU "
                                                           "(default 1: the workers take the other cores)")
    p.add_argument("--no-device-resident", action="store_true", help="skip the device-resident row")
    add_output_args(p, quiet=True)
    p.set_defaults(func=cmd_dataload)
