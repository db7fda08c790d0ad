"""TensorBoard logs as Studio runs (``studio import LOGDIR``, a log folder dropped on the window).

Each folder holding event files is one TensorBoard run (a ``SummaryWriter`` folder, a Lightning
``lightning_logs/version_N``); the sub-folder ``SummaryWriter.add_hparams`` writes (named by a timestamp) belongs
to its parent. The events are read with ``tbparse`` (TensorBoard's own reader underneath): scalars become the run's
metrics, histograms its ``histograms.jsonl`` (re-binned to the Histograms view's bins), hparams its settings.
Every file is first checked with TensorBoard's record reader: a truncated file is read up to its damage, a file
that is no TensorBoard log is skipped; both are counted.

A run's id comes from its folder's path (``tb-<hash>``), so importing the same folder again is no change; a run
whose event files grew since is imported anew. Writing goes through the store's own functions (the run's
metrics.csv and runs.db), as a native run's does.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from studio.core.errors import ConfigError, DataError
from studio.core.runs import histograms
from studio.core.runs.store import RunStore
from studio.core.runs.tracked import TENSORBOARD, create_external_run, read_tracked, summary_of, write_tracked
from studio.core.vocab import JobState

EVENTS: Final = "tfevents"
_TIMESTAMP = re.compile(r"^\d{9,}(\.\d+)?$")  # the sub-folder add_hparams writes
ROWS_PER_WRITE: Final = 50_000


@dataclass
class ImportReport:
    """What an import did: runs made, runs already there, files skipped or read up to their damage."""

    imported: list[str] = field(default_factory=list)  # run ids
    unchanged: list[str] = field(default_factory=list)
    foreign: list[Path] = field(default_factory=list)  # not a TensorBoard log: skipped
    truncated: list[Path] = field(default_factory=list)  # read up to the damage

    def line(self) -> str:
        """One sentence for the CLI and the window."""
        parts = [f"imported {len(self.imported)} TensorBoard run{'s' * (len(self.imported) != 1)}"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already imported and unchanged")
        if self.foreign:
            parts.append(f"skipped {len(self.foreign)} file{'s' * (len(self.foreign) != 1)} that "
                         f"{'are' if len(self.foreign) != 1 else 'is'} not a TensorBoard log "
                         f"({self.foreign[0].name}{', …' if len(self.foreign) > 1 else ''})")
        if self.truncated:
            parts.append(f"read {len(self.truncated)} truncated file{'s' * (len(self.truncated) != 1)} up to "
                         "the damage")
        return "; ".join(parts)


def is_log_dir(path: Path) -> bool:
    """Whether ``path`` is a folder holding TensorBoard event files (in it or below, a few levels deep)."""
    if not path.is_dir():
        return False
    for depth in ("*", "*/*", "*/*/*", "*/*/*/*"):
        if any(EVENTS in p.name for p in path.glob(depth) if p.is_file()):
            return True
    return False


def find_runs(logdir: Path) -> dict[Path, list[Path]]:
    """Each TensorBoard run folder under ``logdir`` with its event files (an add_hparams sub-folder's files
    counted with its parent's), in path order."""
    files = sorted(p for p in logdir.rglob(f"*{EVENTS}*") if p.is_file())
    runs: dict[Path, list[Path]] = {}
    folders = {f.parent for f in files}
    for f in files:
        folder = f.parent
        if _TIMESTAMP.match(folder.name) and folder.parent in folders:
            folder = folder.parent
        runs.setdefault(folder, []).append(f)
    return dict(sorted(runs.items()))


def check_file(path: Path) -> str:
    """``ok``, ``truncated`` (records, then damage) or ``foreign`` (no record can be read), by TensorBoard's
    own record reader."""
    from tensorboard.compat.proto import event_pb2
    from tensorboard.compat.tensorflow_stub import errors, pywrap_tensorflow

    reader = pywrap_tensorflow.PyRecordReader_New(str(path).encode(), 0, b"", None)
    count = 0
    while True:
        try:
            reader.GetNext()
            event_pb2.Event.FromString(reader.record())
            count += 1
        except errors.OutOfRangeError:
            return "ok" if count else "foreign"
        except Exception:  # noqa: BLE001 - DataLossError, a record that is no Event: damage
            return "truncated" if count else "foreign"


def run_id_for(folder: Path) -> str:
    """The id of the Studio run made from a TensorBoard run folder: the same folder, the same id."""
    return "tb-" + hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:12]


def _signature(files: Iterable[Path]) -> list[list[Any]]:
    return [[f.name, f.stat().st_size] for f in files]


def import_logs(logdir: str | Path, store: RunStore, progress: Callable[[float, str], None] | None = None,
                tags: Iterable[str] = ("tensorboard",)) -> ImportReport:
    """Import every TensorBoard run under ``logdir`` into ``store``. ConfigError when ``logdir`` holds no
    TensorBoard log; DataError when tbparse is not installed."""
    logdir = Path(logdir).expanduser()
    if not logdir.exists():
        raise ConfigError(f"{logdir} does not exist")
    runs = find_runs(logdir) if logdir.is_dir() else {}
    if not runs:
        raise ConfigError(f"{logdir} holds no TensorBoard log (no events.out.tfevents.* file in it or below)")
    try:
        import tbparse  # noqa: F401 - present before anything is written
    except ImportError:
        raise DataError("reading TensorBoard logs needs tbparse: pip install 'studio[tensorboard]'") from None
    report = ImportReport()
    for i, (folder, files) in enumerate(runs.items()):
        if progress:
            progress(i / len(runs), f"run {i + 1} of {len(runs)}: {folder.name}")
        _import_run(logdir, folder, files, store, report, list(tags))
    return report


def _import_run(logdir: Path, folder: Path, files: list[Path], store: RunStore, report: ImportReport,
                tags: list[str]) -> None:
    run_id = run_id_for(folder)
    signature = _signature(files)
    try:
        old = store.get(run_id)
    except ConfigError:
        old = None
    if old is not None:
        if read_tracked(old.dir).get("signature") == signature:
            report.unchanged.append(run_id)
            return
        store.delete(run_id)  # the log grew since: import it anew
    readable = []
    for f in files:
        state = check_file(f)
        if state == "foreign":
            report.foreign.append(f)
            continue
        if state == "truncated":
            report.truncated.append(f)
        readable.append(f)
    if not readable:
        return
    scalars, hists, hparams = _read(readable)
    name = f"{logdir.name}/{folder.relative_to(logdir)}" if folder != logdir else logdir.name
    info = create_external_run(store, name=name, config=hparams, tags=tags, source=TENSORBOARD, run_id=run_id,
                               extra={"logdir": str(folder), "signature": signature})
    # one value per (step, tag): a step written twice (a resumed writer, a file copied) keeps its last
    rows = list({(int(s), str(t)): (int(s), str(t), float(v), float(w)) for s, t, v, w in scalars}.values())
    for start in range(0, len(rows), ROWS_PER_WRITE):
        store.log_metrics(run_id, rows[start:start + ROWS_PER_WRITE])
    if hists:
        histograms.append(info.dir, hists)
    last: dict[str, float] = {}
    for _step, tag, value, _ in sorted(rows):
        last[tag] = value
    walls = [r[3] for r in rows if math.isfinite(r[3])]
    summary = summary_of(last, steps=max((r[0] for r in rows), default=0),
                         seconds=(max(walls) - min(walls)) if walls else None)
    store.set_status(run_id, JobState.FINISHED.value, f"imported from the TensorBoard log {folder}",
                     summary=summary)  # type: ignore[arg-type]
    if rows:
        store.write_curve_cache(run_id)
    write_tracked(info.dir, {"signature": signature})
    report.imported.append(run_id)


def _read(files: list[Path]) -> tuple[list[tuple], list[histograms.HistogramRecord], dict[str, Any]]:
    """The files' scalars ``(step, tag, value, wall)``, histograms (as Studio records) and hparams."""
    from tbparse import SummaryReader

    scalars: list[tuple] = []
    records: list[histograms.HistogramRecord] = []
    hparams: dict[str, Any] = {}
    for f in files:
        reader = SummaryReader(str(f), pivot=False, extra_columns={"wall_time"})
        frame = reader.scalars
        if len(frame):
            scalars += list(zip(frame["step"], frame["tag"], frame["value"], frame["wall_time"], strict=True))
        hist = reader.histograms
        for step, tag, counts, limits in zip(hist.get("step", []), hist.get("tag", []), hist.get("counts", []),
                                             hist.get("limits", []), strict=True):
            record = rebin(int(step), str(tag), list(counts), list(limits))
            if record is not None:
                records.append(record)
        params = reader.hparams
        for tag, value in zip(params.get("tag", []), params.get("value", []), strict=True):
            hparams[str(tag)] = value.item() if hasattr(value, "item") else value
    return scalars, records, hparams


def rebin(step: int, tag: str, counts: list[float], limits: list[float]) -> histograms.HistogramRecord | None:
    """A TensorBoard histogram (bucket counts and their right edges) as a Studio record: its values spread
    over ``histograms.BINS`` even bins between its lowest and highest filled bucket (each bucket's count
    goes to the bin holding the bucket's middle). None for an empty one."""
    filled = [i for i, c in enumerate(counts) if c > 0]
    if not filled or len(limits) != len(counts):
        return None
    left = [limits[i - 1] if i > 0 else limits[0] for i in range(len(limits))]
    ends = [x for x in (left[filled[0]], limits[filled[-1]]) if math.isfinite(x)]
    if not ends:
        return None
    low, high = min(ends), max(ends)
    mids = [(left[i] + limits[i]) / 2 if math.isfinite(left[i] + limits[i]) else (low if i == 0 else high)
            for i in range(len(counts))]
    width = (high - low) / histograms.BINS or 1.0
    binned = [0] * histograms.BINS
    total = total_sq = 0.0
    for i in filled:
        b = min(histograms.BINS - 1, max(0, int((mids[i] - low) / width)))
        binned[b] += int(round(counts[i]))
        total += mids[i] * counts[i]
        total_sq += mids[i] ** 2 * counts[i]
    kind = "grad" if "grad" in tag.lower() else "weight"
    return {"step": step, "name": tag, "kind": kind, "min": low, "max": high, "num": int(sum(binned)),
            "sum": total, "sum_sq": total_sq, "counts": binned}


def imported_from(run_dir: Path) -> str | None:
    """The TensorBoard folder a run was imported from (None for any other run)."""
    tracked = read_tracked(run_dir)
    return tracked.get("logdir") if tracked.get("source") == TENSORBOARD else None

