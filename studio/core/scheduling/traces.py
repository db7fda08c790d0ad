"""A synthetic trace shaped like the production traces GPU schedulers are judged on (Tiresias' from Microsoft's
Philly cluster): most jobs short, a few very long (a heavy tail of job sizes), most on one GPU, a few on many,
arriving as a Poisson process. Seeded, so a paper check sees the same jobs every time."""

from __future__ import annotations

import numpy as np

from studio.core.scheduling.jobs import Job

# GPUs per job and how often (Philly: mostly 1 GPU, a long tail of 2 to 16 and more)
GPU_MIX = ((1, 0.70), (2, 0.12), (4, 0.10), (8, 0.06), (16, 0.02))


def heavy_tailed(n: int = 480, gpus: int = 60, load: float = 0.9, short_share: float = 0.8,
                 short_mean_s: float = 300.0, long_mean_s: float = 6 * 3600.0, seed: int = 0) -> list[Job]:
    """``n`` jobs: a share ``short_share`` with exponential durations of mean ``short_mean_s`` (minutes), the rest
    log-normal around ``long_mean_s`` (hours); GPUs from ``GPU_MIX``; Poisson arrivals at a rate that asks
    ``load`` × the cluster's ``gpus`` on average."""
    rng = np.random.default_rng(seed)
    short = rng.random(n) < short_share
    sigma = 1.0
    durations = np.where(short, rng.exponential(short_mean_s, n),
                         rng.lognormal(np.log(long_mean_s) - sigma ** 2 / 2, sigma, n))
    durations = np.maximum(durations, 10.0)
    sizes, weights = zip(*GPU_MIX, strict=True)
    widths = rng.choice(sizes, size=n, p=np.array(weights) / sum(weights))
    widths = np.minimum(widths, gpus)
    mean_service = float(np.mean(durations * widths))
    rate = load * gpus / mean_service  # jobs per second
    arrivals = np.cumsum(rng.exponential(1.0 / rate, n))
    arrivals -= arrivals[0]
    return [Job(f"j{i:04d}", float(arrivals[i]), float(durations[i]), int(widths[i]),
                f"{'short' if short[i] else 'long'} job {i} ({int(widths[i])} GPU{'s' if widths[i] > 1 else ''})")
            for i in range(n)]
