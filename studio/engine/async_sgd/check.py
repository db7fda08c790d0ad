"""The paper check of the Async SGD page (``core/checks/paper/chen_async_straggler.py``): one parameter server
with k workers, one of them a straggler, trained synchronously then asynchronously for the same wall time.

Sync and async run one after the other, 4 s each; on a busy machine the load moves between the two (updates/s of
one phase varied 4× from run to run here), and every worker is now and then a straggler itself (another program
holds its core), which alone made async 6–9× faster than sync without any straggler. So the straggler is slow
enough to stand out of that noise (0.2 s per gradient: with 0.05 s and one competing program on a busy machine
the fast workers, starved too, were only twice as fast as it), and beside the paper's ratio the check measures
what holds within one phase, under one load: in the async phase the straggler's gradients ÷ a fast worker's
(async does not wait for it: 0.07–0.2 with it, 0.8–1.3 without)."""

from __future__ import annotations

from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.contracts.async_sgd import AsyncRequest

SPEED_MIN = 4.0  # with the straggler, async's updates/s at least this many times sync's
STRAGGLER_SHARE_MAX = 0.5  # in the async phase, the straggler's gradients at most this share of a fast worker's
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


def run(progress: Any = None, workers: int = 3, delays: str = "0,0,0.2", seconds: float = 4.0, lr: float = 0.1,
        batch_size: int = 32, widths: str = "128", seed: int = 0, dataset: str = "fashion_mnist_small") -> Reproduction:
    """Sync and async for ``seconds`` each. A broken set-up: ``delays="0,0,0"`` (no straggler: in the async phase
    every worker delivers about as many gradients as the others)."""
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
    straggler = max(range(workers), key=lambda w: (request.delay_of(w), w))  # the slowest (the last, if none is)
    counts = list(asyn.get("worker_updates") or [])
    fast = [c for w, c in enumerate(counts) if w != straggler]
    share = counts[straggler] / (sum(fast) / len(fast)) if len(counts) == workers and fast and sum(fast) else None
    at = min(sync["seconds"], asyn["seconds"])
    time_ratio = loss_at(asyn["curve"], "seconds", at) / loss_at(sync["curve"], "seconds", at)
    u = sync["updates"]
    gap = mean_loss(asyn["curve"], "update", u / 4, u) - mean_loss(sync["curve"], "update", u / 4, u)
    slowest = request.delay_of(straggler)
    measures = (
        Measure.at_least(f"updates per second, async ÷ sync (a straggler {slowest:g} s per gradient)", speed,
                         SPEED_MIN, "sync runs at the pace of its slowest worker; async does not wait (Chen et al. "
                                    "2016 §2–3; Dean et al. 2012)"),
        Measure.at_most("async: the straggler's gradients ÷ a fast worker's (the same phase, the same load)", share,
                        STRAGGLER_SHARE_MAX, "async does not wait for the straggler: the others go on (Dean et "
                                             "al. 2012; Chen et al. 2016 §2)"),
        Measure.at_most(f"loss at equal wall time ({at:.1f} s), async ÷ sync", time_ratio, TIME_RATIO_MAX,
                        "async (Downpour) reaches a given loss sooner in wall time (Dean et al. 2012, Fig. 4-5)"),
        Measure.at_least(f"loss per update: async − sync, mean over updates {u // 4}…{u}", gap, UPDATE_GAP_MIN,
                         "stale gradients make each async update worth less (Chen et al. 2016: async converges "
                         "to worse accuracy; Zhang et al. 2016)"),
    )
    details = {"rows": [dict(r) for r in out["rows"]], "speed_ratio": speed, "straggler_share": share,
               "time_ratio": time_ratio, "update_gap": gap}
    return Reproduction(measures, details)
