"""The plain-words verdict of an input-pipeline sweep (``studio dataload``): how much of each training step the
model spent waiting for data, and what to do about it. Pure Python: the rows are ``contracts/dataload.ConfigRow``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

BOTTLENECK = 0.30  # waiting at least this share of each step: the data is the bottleneck
MINOR = 0.10  # below this: data is not the bottleneck
STARVED_CORES = 1.3  # workers that together got fewer cores than this had no core to spare


def pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _best(rows: Sequence[Any]) -> Any | None:
    loaders = [r for r in rows if r["kind"] == "loader"]
    return max(loaders, key=lambda r: r["samples_per_s"]) if loaders else None


def verdict(rows: Sequence[Any]) -> tuple[str, bool]:
    """(the verdict sentence, whether data is the bottleneck) from the sweep's rows: about the first DataLoader
    row (the plainest loader: fewest workers), with the best loader row and the device-resident row as the fixes."""
    loaders = [r for r in rows if r["kind"] == "loader"]
    device = next((r for r in rows if r["kind"] == "device"), None)
    if not loaders:
        if device is None:
            return "nothing was measured.", False
        return (f"the device-resident path waited {pct(device['wait_share'])} of each step for data "
                f"({device['samples_per_s']:,.0f} samples/s).", False)
    base, best = loaders[0], _best(rows)
    assert best is not None
    share = base["wait_share"]
    what = f"with {base['label']}"
    fixes = []
    if best is not base and best["samples_per_s"] > base["samples_per_s"] * 1.05:
        fixes.append(f"{best['label']}: {pct(best['wait_share'])} waiting, {best['speedup']:.1f}× the samples/s"
                     + (f" on {best['cpu_cores']:.1f} cores" if best.get("cpu_cores") else ""))
    if device is not None and base["samples_per_s"] > 0:
        ratio = device["samples_per_s"] / base["samples_per_s"]
        fixes.append(f"preloaded on the device: {pct(device['wait_share'])} waiting, {ratio:.1f}× the samples/s")
    tail = f" ({'; '.join(fixes)})" if fixes else ""
    if share >= BOTTLENECK:
        cores = [r["cpu_cores"] for r in loaders if r["workers"] > 0 and r.get("cpu_cores")]
        starved = f" — the workers got at most {max(cores):.1f} cores: this machine had none to spare" \
            if cores and max(cores) < STARVED_CORES else ""
        return (f"the model waited {pct(share)} of each step for data {what}: preload or add workers{tail}{starved}.",
                True)
    if share < MINOR:
        return (f"data is not the bottleneck: the model waited only {pct(share)} of each step for data {what}; "
                f"compute ({base['compute_ms']:.1f} ms a step) sets the pace — more workers will not help, a bigger "
                "batch or a faster device will.", False)
    return (f"data costs a little: the model waited {pct(share)} of each step for data {what}; more workers or "
            f"preloading win back at most that share{tail}.", False)


def gpu_line(rows: Sequence[Any]) -> str:
    """"GPU utilisation 35 % with 0 workers, 91 % with 4 workers", or '' when NVML sampled nothing."""
    sampled = [r for r in rows if r.get("gpu_util") is not None]
    if not sampled:
        return ""
    return "GPU utilisation " + ", ".join(f"{r['gpu_util']:.0f} % with {r['label']}" for r in sampled)
