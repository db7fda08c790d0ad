"""Every parser that reads a user's file or string, as fuzz targets for tests/reliability/test_fuzz_parsers.py.

``PARSERS`` is the hook: a parser added to Studio joins the fuzz test by appending a :class:`Target` here (the
lesson files, when they come, append theirs). A target has Hypothesis ``inputs`` (random and mutated-valid data)
and ``call(data, folder)``, which feeds one input to the parser (``folder``: an empty folder of its own for files).
The test holds every target to the contract: it returns, or raises a StudioError whose message is one line; in
bounded time and memory. ``never_raises``: a reader that must skip damage and never fail (the run store's own
records).
"""

from __future__ import annotations

import gzip
import io
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st


@dataclass(frozen=True)
class Target:
    name: str
    inputs: st.SearchStrategy[Any]
    call: Callable[[Any, Path], Any]
    never_raises: bool = False
    examples: int = 40  # the default (quick) run's examples; the slow run takes ×10
    warmup: Callable[[], Any] | None = None  # a valid input, parsed once first: imports are not the input's cost


def mutated(valid: bytes | str, junk: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid`` with a few random cuts, insertions and overwrites: inputs that get past a parser's first check."""
    def apply(data: Any, edits: list[tuple[int, int, Any]]) -> Any:
        for at, cut, insert in edits:
            at %= len(data) + 1
            data = data[:at] + insert + data[at + cut:]
        return data

    return st.builds(apply, st.just(valid), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 40), junk),
                                                     max_size=6))


TEXT_JUNK = st.text(max_size=30)
BYTE_JUNK = st.binary(max_size=30)


# --- config TOML, --set, the run filter ---------------------------------------------------------------------------
VALID_TOML = """[data]
name = "moons"
n_samples = 300
[model]
name = "mlp"
widths = [16, 8]
[optimizer]
name = "sgd"
lr = 0.05
momentum = 0.9
[train]
epochs = 2
batch_size = 32
"""
KEYS = ["data.name", "data.n_samples", "model.name", "model.widths", "model.layers", "model.d_model",
        "optimizer.name", "optimizer.lr", "train.epochs", "train.batch_size", "train.precision", "hardware.threads",
        "hardware.processes", "hardware.device", "schedule.name", "train.grad_clip", "nonsense.key", "data"]
VALUES = st.one_of(st.text(max_size=15), st.sampled_from(["nan", "inf", "-1", "0", "1e309", "[1,2]", "[]", "true",
                                                          "mlp", "gpt_lm", "cuda", "99999999999999999999", '"x"']))


def config_toml(text: str, _folder: Path) -> Any:
    from studio.core.config import RunConfig

    return RunConfig.from_toml(text).validate()


def config_file(data: bytes, folder: Path) -> Any:
    from studio.core.config import RunConfig

    (folder / "config.toml").write_bytes(data)
    return RunConfig.load(folder / "config.toml").validate()


def set_overrides(items: list[str], _folder: Path) -> Any:
    from studio.core.config import RunConfig

    return RunConfig().with_overrides(items).validate()


FILTER_WORDS = st.sampled_from(["status:finished", "test_acc>0.8", "optim.lr:0.1", "tag:baseline", "model:mlp",
                                "epochs>=10", "name", "'quoted phrase'", '"', ":", ">", "<=", "!", "-x", "(", ")",
                                "key:", ":value", "lr>nan", "steps<1e999", "notes:*"])


def run_filter(expression: str, _folder: Path) -> Any:
    from types import SimpleNamespace

    from studio.core.runs import run_filter as rf

    runs = [SimpleNamespace(id=f"2025-{i}", name=f"run {i}", status=s, created=float(i), summary={"test_acc": a},
                            tags=["baseline"] if i % 2 else [], run_config=None)
            for i, (s, a) in enumerate([("finished", 0.9), ("failed", None), ("stopped", 0.5)])]
    facts = [rf.facts_of(r, {"optimizer.lr": 0.1 * (i + 1), "model.name": "mlp"}) for i, r in enumerate(runs)]
    parsed = rf.parse(expression, rf.known_keys(facts))
    parsed.select(facts)
    column = expression.split()[0] if expression.split() else "name"
    try:
        rf.check_sort_column(column, rf.known_keys(facts))
    except Exception as err:  # noqa: BLE001 - the sort column's refusal is held to the same contract below
        from studio.core.errors import StudioError

        if not isinstance(err, StudioError):
            raise
        one_line(err)
    return parsed


def one_line(err: BaseException) -> None:
    text = str(err).strip()
    assert text and "\n" not in text, f"not one line: {text!r}"


# --- the run store's own records (a shared store: anyone's files) -------------------------------------------------
VALID_METRICS = b"step,name,value,wall\n1,train/loss,0.5,10.0\n2,\"a, b\",nan,11.0\n#after,1\n2,train/loss,0.4,12.0\n"


def metrics_csv(data: bytes, folder: Path) -> Any:
    from studio.core.runs import metric_log

    (folder / "metrics.csv").write_bytes(data)
    record = metric_log.read_checked(folder)
    assert record is not None and record.skipped >= 0
    return record


def run_records(data: bytes, folder: Path) -> Any:
    from studio.core.contracts import layout
    from studio.core.runs import lineage_record
    from studio.core.runs.record import read_record

    layout.record_path(folder).write_bytes(data)
    layout.lineage_path(folder).write_bytes(data)
    return read_record(folder), lineage_record.read(folder)


# --- dataset importers ----------------------------------------------------------------------------------------
def text_corpus(data: bytes, folder: Path) -> Any:
    from studio.core.datasets.text.reading import read_txt

    (folder / "corpus.txt").write_bytes(data)
    return read_txt(folder / "corpus.txt")


VALID_LABELLED = "text,label\n" + "".join(f"line {i} about things,{'ab'[i % 2]}\n" for i in range(12))


def labelled_csv(text: str, folder: Path) -> Any:
    from studio.core.datasets.text.labelled import read_labelled

    (folder / "labelled.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
    return read_labelled(folder / "labelled.csv")


VALID_PIXELS = "label," + ",".join(f"p{i}" for i in range(16)) + "\n" + "".join(
    f"{i % 3}," + ",".join(str((i * 7 + j) % 256) for j in range(16)) + "\n" for i in range(9))


def image_csv(text: str, folder: Path) -> Any:
    from studio.core.datasets.importers.csv_table import import_csv
    from studio.core.datasets.importers.options import ImportOptions
    from studio.core.datasets.importers.progress import import_progress

    (folder / "pixels.csv").write_text(text, encoding="utf-8", errors="surrogatepass")
    return import_csv([(folder / "pixels.csv", 0)], ImportOptions(), import_progress())


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


VALID_NPZ = _npz_bytes({"x": np.arange(6 * 16, dtype=np.uint8).reshape(6, 4, 4), "y": np.array([0, 1] * 3)})
ARRAYS = st.dictionaries(st.sampled_from(["x", "y", "x_train", "y_train", "x_test", "y_test", "classes", "images"]),
                         st.builds(lambda shape, kind: np.zeros(shape, dtype=kind),
                                   st.lists(st.integers(0, 5), max_size=4).map(tuple),
                                   st.sampled_from(["u1", "i8", "f4", "f8", "?", "U3", "c8"])), max_size=4)


def npz_file(data: bytes, folder: Path) -> Any:
    from studio.core.datasets.importers.npz import import_npz
    from studio.core.datasets.importers.options import ImportOptions
    from studio.core.datasets.importers.progress import import_progress

    (folder / "data.npz").write_bytes(data)
    return import_npz(folder / "data.npz", ImportOptions(), import_progress())


def _idx(kind: int, dims: list[int], payload: bytes) -> bytes:
    return bytes([0, 0, kind, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + payload


VALID_IDX = (_idx(8, [6, 4, 4], bytes(range(96))), _idx(8, [6], bytes([0, 1, 2, 0, 1, 2])))
IDX_PAIRS = st.one_of(
    st.tuples(mutated(VALID_IDX[0], BYTE_JUNK), mutated(VALID_IDX[1], BYTE_JUNK)),
    st.tuples(st.builds(_idx, st.sampled_from([8, 9, 11, 12, 13, 14, 0, 255]),
                        st.lists(st.integers(0, 2**32 - 1), max_size=4), st.binary(max_size=200)),
              st.builds(_idx, st.sampled_from([8, 13]), st.lists(st.integers(0, 2**32 - 1), max_size=2),
                        st.binary(max_size=50))),
    st.tuples(st.binary(max_size=100), st.binary(max_size=100)))


def idx_files(pair: tuple[bytes, bytes], folder: Path) -> Any:
    from studio.core.datasets.importers.idx_files import import_idx
    from studio.core.datasets.importers.options import ImportOptions
    from studio.core.datasets.importers.progress import import_progress

    images, labels = folder / "train-images-idx3-ubyte.gz", folder / "train-labels-idx1-ubyte"
    images.write_bytes(gzip.compress(pair[0]))
    labels.write_bytes(pair[1])
    return import_idx([images, labels], str(folder), ImportOptions(), import_progress())


# --- TensorBoard logs (studio import LOGDIR) -----------------------------------------------------------------------
def valid_events() -> bytes:
    """A small real event file, written once by TensorBoard's own writer."""
    import tempfile

    from tests.track.tb_logs import summary_writer_run

    with tempfile.TemporaryDirectory() as tmp:
        summary_writer_run(Path(tmp), steps=6, hparams=False)
        return next(Path(tmp).glob("events.out.tfevents.*")).read_bytes()


def tensorboard_log(data: bytes, folder: Path) -> Any:
    from studio.core.runs.store import RunStore
    from studio.core.runs.tensorboard_import import import_logs

    logs = folder / "logs" / "run1"
    logs.mkdir(parents=True)
    (logs / "events.out.tfevents.1700000000.host.1.0").write_bytes(data)
    store = RunStore(folder / "home")
    try:
        return import_logs(folder / "logs", store)
    finally:
        store.close()


def _events() -> st.SearchStrategy[bytes]:
    return st.deferred(lambda: mutated(_EVENTS.setdefault("valid", valid_events()), BYTE_JUNK)
                       | st.binary(max_size=300))


_EVENTS: dict[str, bytes] = {}

PARSERS: list[Target] = [
    Target("config TOML", st.one_of(st.text(max_size=300), mutated(VALID_TOML, TEXT_JUNK)), config_toml),
    Target("config file", st.one_of(st.binary(max_size=300), mutated(VALID_TOML.encode(), BYTE_JUNK)), config_file),
    Target("--set", st.lists(st.one_of(st.text(max_size=40), st.builds(lambda k, v: f"{k}={v}",
                                                                       st.sampled_from(KEYS), VALUES)), max_size=4),
           set_overrides),
    Target("run filter", st.one_of(st.text(max_size=80), st.lists(FILTER_WORDS, max_size=6).map(" ".join)),
           run_filter),
    Target("metrics.csv", st.one_of(st.binary(max_size=500), mutated(VALID_METRICS, BYTE_JUNK)), metrics_csv,
           never_raises=True),
    Target("run.json and lineage.json", st.one_of(st.binary(max_size=200), mutated(b'{"status": "finished", '
                                                  b'"summary": {"steps": 3}, "vocab_source": {}}', BYTE_JUNK)),
           run_records, never_raises=True),
    Target("text corpus", st.one_of(st.binary(max_size=500), mutated(b"one line\nanother line\n" * 8, BYTE_JUNK)),
           text_corpus),
    Target("labelled CSV", st.one_of(st.text(max_size=300), mutated(VALID_LABELLED, TEXT_JUNK)), labelled_csv),
    Target("image CSV", st.one_of(st.text(max_size=300), mutated(VALID_PIXELS, TEXT_JUNK)), image_csv),
    Target("NPZ", st.one_of(st.binary(max_size=300), mutated(VALID_NPZ, BYTE_JUNK), ARRAYS.map(_npz_bytes)),
           npz_file),
    Target("IDX", IDX_PAIRS, idx_files),
    Target("TensorBoard log", _events(), tensorboard_log, examples=8,
           warmup=lambda: _EVENTS.setdefault("valid", valid_events())),
]
