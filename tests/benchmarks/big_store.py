"""A big run store for the scale benchmark (issue 25): N finished runs × S logged steps, written through the real
``RunStore`` (``create_run``, ``log_metrics`` in big batches, ``set_status finished``), and the same values as
TensorBoard event files, cached under ``STUDIO_BENCH_CACHE`` (default ``/tmp/studio-bench-cache``) in a folder per
``(N, S)`` so reruns reuse it (``NxS-packed`` once ``RunStore.write_curve_cache`` exists: each run's curves are then
packed as a real run's end packs them).

What each run logs is what a real run logs with ``train.metric_interval = 1`` (engine/callbacks/builtin.py): every
step ``train/loss``, ``train/acc``, ``lr`` and ``throughput``; ``val/loss`` and ``val/acc`` every 100 steps;
``epoch`` every 1,000 steps (so the epoch axis works). 200 × 20,000 gives the issue's 16 M metric rows. The curves
are plausible: a noisy decaying loss with a few spikes, accuracy rising to a plateau, warm-up then cosine decay.

The event files are written here, not with Studio's own TensorBoard export (engine/tasks/export.py): that goes
through ``torch.utils.tensorboard.SummaryWriter``, whose record CRC is TensorBoard's pure-Python CRC-32C when
TensorFlow is absent (35 k scalars/s measured here: 8 minutes for 16 M values). The records are the same bytes
(``Event{wall_time, step, summary{value{tag, simple_value}}}`` in TFRecord framing with masked CRC-32C), built
with numpy a whole run at a time; ``test_big_store.py`` reads them back with TensorBoard's own loader.

CLI: ``python tests/benchmarks/big_store.py N S`` builds (or finds) one store and prints its folder.
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ALL_PER_STEP = ("train/loss", "train/acc", "lr", "throughput")
# STUDIO_BENCH_PER_STEP=train/loss: one value a step (issue 40's 1,000 × 100k = 100 M values), the rest as it is
PER_STEP = tuple(n for n in os.environ.get("STUDIO_BENCH_PER_STEP", ",".join(ALL_PER_STEP)).split(",") if n)
VAL_EVERY = 100
VAL = ("val/loss", "val/acc")
EPOCH_EVERY = 1000
WALL_PER_STEP = 0.037  # seconds a step takes (the wall axis then differs from the step axis)
BATCH_ROWS = 200_000  # rows per log_metrics call
BYTES_PER_ROW = 240  # runs.db 141 + metrics.csv 52 + event files 47 (test_store_size.py, 2026-11-28)
MAX_BYTES = float(os.environ.get("STUDIO_BENCH_MAX_GB", "8")) * 1e9  # a size over this is skipped (a shared disk)
DEFAULT_CACHE = "/tmp/studio-bench-cache"


def rows_per_run(steps: int) -> int:
    return len(PER_STEP) * steps + len(VAL) * (steps // VAL_EVERY) + steps // EPOCH_EVERY


def estimated_bytes(runs: int, steps: int) -> float:
    return runs * rows_per_run(steps) * BYTES_PER_ROW


def too_big(runs: int, steps: int) -> str:
    """Why this size is skipped ('' when it is not)."""
    size = estimated_bytes(runs, steps)
    if size > MAX_BYTES:
        return (f"{runs}x{steps}: skipped, about {size / 1e9:.0f} GB on disk ({runs * rows_per_run(steps) / 1e6:.0f} M "
                f"metric rows), over the {MAX_BYTES / 1e9:.0f} GB this shared disk allows")
    return ""


def curves(index: int, steps: int, start: float) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Run ``index``'s metrics as ``name → (steps, values, walls)``: deterministic, different per run."""
    rng = np.random.default_rng(1000 + index)
    s = np.arange(steps, dtype=np.int64)
    walls = start + s * WALL_PER_STEP + rng.normal(0, 0.002, steps).cumsum() * 0.01
    floor, scale, tau = 0.15 + 0.2 * rng.random(), 2.0 + rng.random(), steps * (0.05 + 0.2 * rng.random())
    clean = floor + scale * np.exp(-s / tau)
    loss = clean * np.exp(rng.normal(0, 0.08, steps))
    spikes = rng.choice(steps, size=max(1, steps // 5000), replace=False)
    loss[spikes] *= 3 + 4 * rng.random(len(spikes))  # a few spikes: min/max decimation must keep them
    acc = np.clip(1 - 0.9 * np.exp(-s / tau) - 0.08 * floor + rng.normal(0, 0.02, steps), 0, 1)
    peak, warm = 10 ** rng.uniform(-4, -2), max(1, steps // 50)
    lr = np.where(s < warm, peak * (s + 1) / warm, peak * 0.5 * (1 + np.cos(np.pi * (s - warm) / max(1, steps - warm))))
    lr = np.maximum(lr, peak * 1e-3)
    throughput = 5000 * (1 + 0.3 * rng.random()) * np.exp(rng.normal(0, 0.05, steps))
    out = {"train/loss": (s, loss, walls), "train/acc": (s, acc, walls), "lr": (s, lr, walls),
           "throughput": (s, throughput, walls)}
    v = s[VAL_EVERY - 1::VAL_EVERY]
    out["val/loss"] = (v, clean[v] * 1.1 + rng.normal(0, 0.01, len(v)), walls[v])
    out["val/acc"] = (v, np.clip(acc[v] - 0.02, 0, 1), walls[v])
    e = s[EPOCH_EVERY - 1::EPOCH_EVERY]
    out["epoch"] = (e, (np.arange(len(e)) + 1).astype(float), walls[e])
    return {k: v for k, v in out.items() if k not in ALL_PER_STEP or k in PER_STEP}


# --- TensorBoard event files ------------------------------------------------------------------------------------
def _crc_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


CRC_TABLE = _crc_table()


def masked_crc32c(rows: np.ndarray) -> np.ndarray:
    """TFRecord's masked CRC-32C of each row of a ``(n, length)`` uint8 array, computed a column at a time."""
    crc = np.full(rows.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(rows.shape[1]):
        crc = CRC_TABLE[(crc ^ rows[:, j]) & 0xFF] ^ (crc >> 8)
    crc ^= np.uint32(0xFFFFFFFF)
    return (((crc >> 15) | (crc << 17)) + np.uint32(0xA282EAD8)).astype(np.uint32)


def _frame(data: np.ndarray) -> np.ndarray:
    """TFRecord framing of equal-length records ``(n, L)``: length, its masked CRC, the data, its masked CRC."""
    n, length = data.shape
    header = np.frombuffer(struct.pack("<Q", length), dtype=np.uint8)
    out = np.empty((n, 16 + length), dtype=np.uint8)
    out[:, :8] = header
    out[:, 8:12] = masked_crc32c(header[None, :]).view(np.uint8)[None, :]
    out[:, 12:12 + length] = data
    out[:, 12 + length:] = masked_crc32c(data)[:, None].view(np.uint8)
    return out


def scalar_records(tag: str, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> list[np.ndarray]:
    """Framed ``Event`` records of one tag, in step order, grouped by the byte length of the step's varint."""
    name = tag.encode()
    value = b"\x0a" + bytes([len(name)]) + name + b"\x15"  # Summary.Value{tag=1, simple_value=2 (float32)}
    out = []
    varint_len = np.ones(len(steps), dtype=np.int64)
    for k in range(1, 10):
        varint_len[steps >= (1 << (7 * k))] = k + 1
    for k in np.unique(varint_len):
        pick = varint_len == k
        n = int(pick.sum())
        summary = b"\x0a" + bytes([len(value) + 4]) + value  # Summary{value=1}
        head_len = 9 + 1 + int(k)
        length = head_len + 2 + len(summary) + 4
        data = np.empty((n, length), dtype=np.uint8)
        data[:, 0] = 0x09  # wall_time=1, fixed64 double
        data[:, 1:9] = walls[pick].astype("<f8").view(np.uint8).reshape(n, 8)
        data[:, 9] = 0x10  # step=2, varint
        st = steps[pick].astype(np.uint64)
        for i in range(int(k)):
            data[:, 10 + i] = ((st >> np.uint64(7 * i)) & np.uint64(0x7F)).astype(np.uint8) | (0x80 if i < k - 1 else 0)
        data[:, head_len] = 0x2A  # summary=5, length-delimited
        data[:, head_len + 1] = len(summary) + 4
        data[:, head_len + 2:length - 4] = np.frombuffer(summary, dtype=np.uint8)
        data[:, length - 4:] = values[pick].astype("<f4").view(np.uint8).reshape(n, 4)
        out.append(_frame(data))
    return out


def _version_record(wall: float) -> bytes:
    data = b"\x09" + struct.pack("<d", wall) + b"\x1a\x0dbrain.Event:2"  # Event{wall_time=1, file_version=3}
    return _frame(np.frombuffer(data, dtype=np.uint8)[None, :]).tobytes()


def write_events(folder: Path, metrics: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> int:
    """One event file with every value of ``metrics``, interleaved in step order as a training run writes them
    (TensorBoard treats a step going back as a restart); returns the bytes written."""
    blocks, steps, order = [], [], []
    for t, (name, (s, v, w)) in enumerate(metrics.items()):
        for group in scalar_records(name, s, v, w):
            blocks.append(group)
        steps.append(s)
        order.append(np.full(len(s), t))
    lengths = np.concatenate([np.full(len(b), b.shape[1]) for b in blocks])
    flat = np.concatenate([b.ravel() for b in blocks])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    sequence = np.lexsort((np.concatenate(order), np.concatenate(steps)))
    lengths, starts = lengths[sequence], starts[sequence]
    ends = np.cumsum(lengths)
    index = np.arange(ends[-1]) - np.repeat(ends - lengths - starts, lengths)
    first_wall = min(float(w[0]) for _, _, w in metrics.values())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"events.out.tfevents.{int(first_wall)}.studio-bench"
    data = _version_record(first_wall) + flat[index].tobytes()
    path.write_bytes(data)
    return len(data)


# --- the store --------------------------------------------------------------------------------------------------
@dataclass
class BigStore:
    runs: int
    steps: int
    home: Path  # STUDIO_HOME of the run store
    logdir: Path  # TensorBoard's --logdir: a folder per run
    seconds: float  # spent building it now (0: found in the cache)

    @property
    def folder(self) -> Path:
        return self.home.parent

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())


def cache_root() -> Path:
    return Path(os.environ.get("STUDIO_BENCH_CACHE", DEFAULT_CACHE))


def build(runs: int, steps: int, root: Path | None = None, log=print) -> BigStore:
    """The store for ``(runs, steps)``: found in the cache, or written now (a half-written one is redone)."""
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore
    from studio.core.vocab import JobState

    # a store whose RunStore packs a run's curves when it ends (issue 25's curve cache) gets a folder of its own: a
    # store written before has no packed curves, and would be packed lazily at the first selection instead
    pack = getattr(RunStore, "write_curve_cache", None)
    kind = "" if PER_STEP == ALL_PER_STEP else "-" + "+".join(n.replace("/", "_") for n in PER_STEP)
    folder = (root or cache_root()) / f"{runs}x{steps}{'-packed' if pack else ''}{kind}"
    home, logdir, done = folder / "home", folder / "tensorboard", folder / "complete"
    if done.exists():
        return BigStore(runs, steps, home, logdir, 0.0)
    if folder.exists():
        shutil.rmtree(folder)
    started = time.perf_counter()
    store = RunStore(home)
    t0 = time.time() - 86400 * 7
    for i in range(runs):
        cfg = RunConfig()
        # a learning rate of its own, 1e-4 … 1e-2 (golden-ratio spread): runs alike but for it would be one seed group,
        # drawn as a band (issue 36); 1,000 random rates rounded to 6 digits repeated 123 times
        cfg.optimizer.params["lr"] = float(f"{10 ** (-4 + 2 * ((i * 0.6180339887498949) % 1)):.6g}")
        cfg.train.metric_interval = 1
        run = store.create_run(cfg)
        metrics = curves(i, steps, t0 + i * steps * WALL_PER_STEP * 0.1)
        rows = sorted(((int(s), name, float(v), float(w)) for name, (ss, vv, ww) in metrics.items()
                       for s, v, w in zip(ss, vv, ww, strict=True)), key=lambda r: r[0])
        for k in range(0, len(rows), BATCH_ROWS):
            store.log_metrics(run.id, rows[k:k + BATCH_ROWS])
        loss, acc = metrics["val/loss"][1], metrics["val/acc"][1]
        store.set_status(run.id, JobState.FINISHED.value, summary={
            "steps": steps, "epochs": steps // EPOCH_EVERY, "train_loss": float(metrics["train/loss"][1][-1]),
            "val_loss": float(loss[-1]) if len(loss) else float("nan"),
            "val_acc": float(acc[-1]) if len(acc) else float("nan"),
            "test_acc": float(acc[-1]) if len(acc) else float("nan")})
        if pack is not None:
            pack(store, run.id)  # what the end of a real run does (engine/loop/sinks.py)
        write_events(logdir / run.id, metrics)
        if (i + 1) % max(1, runs // 10) == 0:
            log(f"  {runs}x{steps}: {i + 1}/{runs} runs written ({time.perf_counter() - started:.0f} s)")
    store.close()
    done.write_text(f"{runs} runs x {steps} steps\n")
    return BigStore(runs, steps, home, logdir, time.perf_counter() - started)


if __name__ == "__main__":
    n, s = int(sys.argv[1]), int(sys.argv[2])
    if reason := too_big(n, s):
        sys.exit(reason)
    big = build(n, s)
    print(f"{big.folder} ({big.disk_bytes() / 1e9:.2f} GB, built in {big.seconds:.0f} s)")
