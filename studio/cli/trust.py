"""``studio trust RUN``: let Studio import the code a run folder holds (``code/``: a user's model or dataset file
copied there by the run that trained it) — needed once for a run folder from elsewhere (another person's, another
store) before ``studio eval``, ``landscape``, ``train --resume`` … may run it. The window asks the same question
when such a run is opened. Runs this user trained are trusted already."""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.cli._shared import add_output_args, emit_json

COMMANDS = ("trust",)


def cmd_trust(args: argparse.Namespace) -> int:
    from studio.core.contracts import layout
    from studio.core.errors import ConfigError
    from studio.core.usercode.run_copy import read_manifest
    from studio.core.usercode.trust import sha256_of, trust

    folder = Path(args.run).expanduser()
    if not layout.is_run_dir(folder):
        from studio.core.runs.store import RunStore

        folder = RunStore().resolve(args.run).dir  # a run id of this store (a prefix or suffix will do)
    copies = read_manifest(folder)
    if not copies:
        raise ConfigError(f"{folder} holds no code of its own (no code/manifest.json): nothing to trust")
    files = [layout.code_dir(folder) / c.file for c in copies]
    digests = [sha256_of(f) for f in files]
    trust(digests)
    if args.json:
        emit_json({"run_dir": str(folder), "trusted": [{"file": str(f), "sha256": d}
                                                       for f, d in zip(files, digests, strict=True)]})
    elif not args.quiet:
        for f, d in zip(files, digests, strict=True):
            print(f"trusted {f} (SHA-256 {d})")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trust", help="let Studio run the code a run folder holds (a run from elsewhere)",
                       description=__doc__)
    p.add_argument("run", help="the run's folder, or a run id of this store")
    add_output_args(p, quiet=True, what="the files trusted and their SHA-256")
    p.set_defaults(func=cmd_trust)
