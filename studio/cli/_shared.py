"""What the headless commands share: one JSON line for scripts (``--json``, NaN as null), the arguments every
command spells the same (``--json``/``--quiet``, ``--config``/``--set`` and the config they load), the progress
printer on stderr, and ``run_dir_of`` (a run id or folder to its folder)."""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from studio.core.contracts.progress import EtaEstimator, Report, format_eta

if TYPE_CHECKING:
    from studio.core.config import RunConfig


def _clean(value: Any) -> Any:
    """JSON has no NaN: a missing number is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def emit_json(obj: Mapping[str, Any]) -> None:
    print(json.dumps(_clean(obj)), flush=True)


def run_and_print(args: Any, work: Callable[[Any], Any], table: Callable[[Any], str]) -> int:
    """The measuring commands' one shape: ``work(progress)`` with a progress line on stderr (``--quiet``: none),
    then its result as one JSON line (``--json``) or as ``table(result)``; exit 0."""
    bar = StderrProgress(getattr(args, "quiet", False))
    try:
        out = work(bar)
    finally:
        bar.close()
    if args.json:
        emit_json(out)
    else:
        print(table(out))
    return 0


def add_output_args(p: argparse.ArgumentParser, quiet: bool = False, what: str = "the result") -> None:
    """``--json`` (``what`` as one JSON line on stdout) and, with ``quiet``, ``--quiet`` (no progress on stderr)."""
    p.add_argument("--json", action="store_true", help=f"print {what} as one JSON line on stdout")
    if quiet:
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_config_args(p: argparse.ArgumentParser, example: str = "optimizer.lr=0.01",
                    config_help: str = "a run config TOML file (default: the built-in default)") -> None:
    """``--config FILE`` and repeatable ``--set SECTION.KEY=VALUE`` (read by :func:`load_config`)."""
    p.add_argument("--config", help=config_help)
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help=f"override one setting, e.g. --set {example} (repeatable)")


def load_config(args: argparse.Namespace) -> RunConfig:
    """The run config of ``--config`` (the built-in default without it) with every ``--set`` applied, and with
    ``--preset suggested`` (where the command has it) the model's suggested settings that no ``--set`` names, with
    another ``--preset`` a paper's set-up (core/config/paper_presets.py) likewise."""
    from studio.core.config import RunConfig

    config = RunConfig.load(args.config) if args.config else RunConfig()
    preset = getattr(args, "preset", None)
    if preset and preset != "suggested":  # a paper's set-up first, so that every --set changes it
        from studio.core.config.paper_presets import PAPER_PRESETS
        from studio.core.config.suggested import with_values

        config = with_values(config, PAPER_PRESETS[preset])
    config = config.with_overrides(args.set)
    if preset == "suggested":
        from studio.core.config.suggested import with_suggested

        config = with_suggested(config, keep=[item.partition("=")[0].strip() for item in args.set])
    return config


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
    """The one progress printer of the headless commands, on stderr.

    On a terminal, one live line: ``[#####      ]  40% evaluating the grid · about 12 s left``. Otherwise
    (a log, a pipe) the same text a line at a time: one per tenth for a ``(fraction, text)`` task, one per stage
    for a :class:`~studio.core.contracts.progress.Report` with a ``total``, one per epoch for :meth:`training`. The
    ETA is the job's own (``Report.eta_s``, the training job's ``eta_s``) in ``contracts/progress.format_eta``'s words;
    a task that reports only a fraction gets ``contracts/progress.EtaEstimator``'s (the recent rate, from its first
    report on). ``quiet`` (``--quiet``) prints nothing; ``lines=False`` prints nothing off a terminal (an import: an
    error is then the only line a script sees).
    """

    WIDTH = 30  # characters of the bar

    def __init__(self, quiet: bool = False, lines: bool = True, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet or not (self.tty or lines)
        self._key: object = None  # what started the last line off a terminal (a tenth, a stage, an epoch)
        self._drawn = 0  # width of the live line on a terminal (0: none yet)
        self._eta = EtaEstimator()  # for a task that reports only a fraction

    def __call__(self, fraction: float | Report, text: str = "") -> None:
        """A task's report: ``progress(fraction, text)`` or ``progress(report)``."""
        if isinstance(fraction, Report):
            r = fraction
            self.show(r.fraction, r.text, r.eta_s, r.text if r.total else int(r.fraction * 10))
        else:
            self.show(fraction, text, self._estimate(fraction), int(fraction * 10))

    def training(self, progress: Mapping[str, Any], loss: float | None = None) -> None:
        """A training job's ``{step, total_steps, epoch, epochs, eta_s}`` (the job's ETA) and its last loss."""
        step, total, epoch = progress.get("step", 0), progress.get("total_steps") or 0, progress.get("epoch", 0)
        text = f"epoch {epoch}/{progress.get('epochs', 0)} step {step}/{total}"
        text += f" loss {loss:.4f}" if loss is not None else ""
        self.show(step / total if total else 0.0, text, progress.get("eta_s"), ("epoch", epoch))

    def show(self, fraction: float, text: str, eta_s: float | None, key: object) -> None:
        """Draw ``fraction``, ``text`` and the ETA; off a terminal, print a line when ``key`` changes."""
        if self.quiet:
            return
        pct = int(min(max(fraction, 0.0), 1.0) * 100)
        eta = f" · {format_eta(eta_s)}" if eta_s is not None else ""
        line = f"{pct:3d}% {text}{eta}"
        if self.tty:
            bar = f"[{'#' * (pct * self.WIDTH // 100):<{self.WIDTH}}] "
            over = len(bar) + len(line) - (shutil.get_terminal_size().columns - 1)
            if over > 0:  # a wrapped line cannot be redrawn: shorten the text, keep the ETA
                line = f"{pct:3d}% {text[:max(0, len(text) - over - 1)]}…{eta}"
            live = bar + line
            self.stream.write("\r" + live.ljust(self._drawn))
            self.stream.flush()
            self._drawn = len(live)
        elif key != self._key:
            print(line, file=self.stream, flush=True)
        self._key = key

    def close(self) -> None:
        """End the live line (a terminal)."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = 0

    def _estimate(self, fraction: float) -> float | None:
        return self._eta.update(fraction, time.monotonic())
