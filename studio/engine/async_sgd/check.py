"""The paper check of the Async SGD page (``core/checks/paper/chen_async_straggler.py``): one parameter server
with k workers, one of them a straggler, trained synchronously then asynchronously for the same wall time."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.contracts.async_sgd import AsyncRequest

SPEED_MIN = 4.0  # async's updates/s at least this many times sync's
TIME_RATIO_MAX = 0.85  # async's loss at equal wall time at most this share of sync's
UPDATE_GAP_MIN = 0.03  # async's mean loss over sync's updates at least this much above sync's


def loss_at(curve: list[dict[str, Any]], key: str, x: float) -> float:
    """The curve's loss at ``x`` (updates or seconds), linearly interpolated (clamped at the ends)."""
    xs, ys = [p[key] for p in curve], [p["loss"] for p in curve]
    if x <= xs[0]:
        return float(ys[0])
    for (x0, y0), (x1, y1) in zip(zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True), strict=False):
        if x0 <= x <= x1:
            return float(y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return float(ys[-1])


def mean_loss(curve: list[dict[str, Any]], key: str, lo: float, hi: float, points: int = 24) -> float:
    """The mean of the interpolated loss over ``lo … hi``: less noisy than one point."""
    return sum(loss_at(curve, key, lo + (hi - lo) * i / (points - 1)) for i in range(points)) / points


def run(progress: Any = None, workers: int = 3, delays: str = "0,0,0.05", seconds: float = 3.0, lr: float = 0.1,
        batch_size: int = 32, widths: str = "128", seed: int = 0, dataset: str = "fashion_mnist_small") -> Reproduction:
    """Sync and async for ``seconds`` each. A broken set-up: ``delays="0,0,0"`` (no straggler: sync keeps up, and
    async's loss at equal time was 0.89 of sync's here, outside the band)."""
    from studio.core.contracts.async_sgd import parse_delays
    from studio.core.numbers.ints import split_ints
    from studio.engine.async_sgd.launch import study

    request = AsyncRequest(dataset=dataset, widths=tuple(split_ints(widths)), workers=workers, batch_size=batch_size,
                           updates=0, seconds=seconds, lr=lr, delays=parse_delays(delays), modes=("sync", "async"),
                           seed=seed)
    out = study(request, progress)
    rows = {r["mode"]: r for r in out["rows"]}
    sync, asyn = rows["sync"], rows["async"]
    speed = asyn["updates_per_s"] / max(sync["updates_per_s"], 1e-9)
    at = min(sync["seconds"], asyn["seconds"])
    time_ratio = loss_at(asyn["curve"], "seconds", at) / loss_at(sync["curve"], "seconds", at)
    u = sync["updates"]
    gap = mean_loss(asyn["curve"], "update", u / 4, u) - mean_loss(sync["curve"], "update", u / 4, u)
    slowest = max(request.delay_of(w) for w in range(workers))
    measures = (
        Measure.at_least(f"updates per second, async ÷ sync (a straggler {slowest:g} s per gradient)", speed,
                         SPEED_MIN, "sync runs at the pace of its slowest worker; async does not wait (Chen et al. "
                                    "2016 §2–3; Dean et al. 2012)"),
        Measure.at_most(f"loss at equal wall time ({at:.1f} s), async ÷ sync", time_ratio, TIME_RATIO_MAX,
                        "async (Downpour) reaches a given loss sooner in wall time (Dean et al. 2012, Fig. 4-5)"),
        Measure.at_least(f"loss per update: async − sync, mean over updates {u // 4}…{u}", gap, UPDATE_GAP_MIN,
                         "stale gradients make each async update worth less (Chen et al. 2016: async converges "
                         "to worse accuracy; Zhang et al. 2016)"),
    )
    details = {"rows": [{k: v for k, v in r.items()} for r in out["rows"]], "speed_ratio": speed,
               "time_ratio": time_ratio, "update_gap": gap}
    return Reproduction(measures, details)
