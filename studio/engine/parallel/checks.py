"""The runners of the lab's two paper checks (``core/checks/paper/huang_gpipe_bubble.py`` and
``model_parallel_slower.py``): real rank processes (``launch.run_parallel``), numbers read from the measured
timelines as they would run on dedicated cores (``replay.py``).

On 2 shared cores another program takes a rank's core for a while: the rank's computations stretch on the wall
clock and its peers wait for it, so a bubble or a step time read off the wall clock measures the machine (one
competing program moved the bubble at M = 8 by 0.1 and model parallelism's slow-down through 1.0). Each rank
records the CPU time it got while computing; the checks count that instead: the bubble is the schedule replayed
with each computation lasting its CPU time, a step's time is its span less the time its computations were
descheduled. The wall-clock numbers stay in the details. Statistics are over the timed steps (mean ± s.e.)."""

from __future__ import annotations

import statistics
from typing import Any

from studio.core.checks.base import Measure, Reproduction
from studio.core.checks.stats import over_seeds
from studio.core.contracts.parallel import ModeResult, ParallelRequest
from studio.core.demos.common import report
from studio.engine.parallel.replay import dedicated_spans, median, overlap, replayed_bubbles, work_split
from studio.engine.parallel.timeline import COMPUTE

# model parallelism is slower when its step takes at least 2 % longer than the single process's (measured here,
# quiet: 1.09 and 1.11 on the wall clock)
SLOWER = 1.02
BUBBLE_TOLERANCE = 0.10  # the replayed bubble within 0.10 of (p−1)/(M+p−1) (95 % interval over the timed steps)


def _steps(row: ModeResult) -> dict[int, list[dict[str, Any]]]:
    """The compute intervals of each timeline step. (A step's span is from its first computation to its last:
    a receive posted early, e.g. the last stage waiting for the next step's first activations while the first
    stage still runs its optimizer, would stretch the span over the previous step's end.)"""
    out: dict[int, list[dict[str, Any]]] = {}
    for interval in row["timeline"]:
        if interval["kind"] in COMPUTE:
            out.setdefault(interval["step"], []).append(dict(interval))
    return out


def step_spans(row: ModeResult) -> list[float]:
    """Seconds from the first to the last computation of each timeline step (over every rank), on the wall clock."""
    return [max(i["end"] for i in ivs) - min(i["start"] for i in ivs) for ivs in _steps(row).values()]


def step_busy(row: ModeResult) -> list[list[float]]:
    """Per timeline step: each rank's share of the step's span spent computing (wall clock)."""
    out = []
    for ivs in _steps(row).values():
        span = max(i["end"] for i in ivs) - min(i["start"] for i in ivs)
        ranks = sorted({i["rank"] for i in ivs})
        out.append([sum(i["end"] - i["start"] for i in ivs if i["rank"] == r and i["kind"] in COMPUTE) / span
                    if span > 0 else 0.0 for r in ranks])
    return out


def median_bubble(row: ModeResult) -> float:
    """The median over the timeline steps of each step's idle share of the pipeline ranks (wall clock)."""
    return statistics.median(1 - sum(b) / len(b) for b in step_busy(row))


def _widths(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in str(text).split(",") if v.strip())


def gpipe_bubble(progress: Any = None, ranks: int = 2, microbatches: str = "1,2,8", batch_size: int = 4096,
                 widths: str = "64,2048,1024,2048", steps: int = 7, warmup_steps: int = 2) -> Reproduction:
    """GPipe and 1F1B at every M: the bubble on dedicated cores (the timeline replayed at each computation's CPU
    time) against (p−1)/(m+p−1); 1F1B's activations against GPipe's.

    The default MLP splits into two stages whose forwards AND backwards are about equal (fc1-fc3 | fc4-fc5: 2.3
    and 2.1 M multiply-adds per sample forward, 4.5 and 4.2 backward; a narrow first layer, whose input needs no
    gradient, keeps the first stage's backward as heavy as the second's: GPipe's forward phase is paced by the
    slower forward, its backward phase by the slower backward), with a batch large enough (4096, 512 per
    micro-batch at M = 8) that a micro-batch's compute outweighs the schedule's own overhead. A broken set-up:
    stages that cannot be balanced (``widths="2048,16,16,16"``: the first layer is nearly all the compute)."""
    from studio.engine.parallel.launch import run_parallel
    from studio.engine.parallel.split import bubble_theory

    ms = tuple(int(v) for v in microbatches.split(","))
    request = ParallelRequest(modes=("pipeline-gpipe", "pipeline-1f1b"), ranks=ranks, microbatches=ms,
                              batch_size=batch_size, widths=_widths(widths), steps=steps, warmup_steps=warmup_steps,
                              timeline_steps=steps - warmup_steps)
    report(progress, 0.0, f"GPipe and 1F1B on {ranks} ranks, M = {microbatches}")
    out = run_parallel(request, lambda f, t: report(progress, 0.95 * f, t))
    gpipe = {r["microbatches"]: r for r in out["rows"] if r["mode"] == "pipeline-gpipe"}
    onef = {r["microbatches"]: r for r in out["rows"] if r["mode"] == "pipeline-1f1b"}
    per_step = {m: replayed_bubbles(r) for m, r in gpipe.items()}
    bubbles = {m: median(v) for m, v in per_step.items()}
    big, small = max(ms), min(ms)
    theory = {m: bubble_theory(ranks, m) for m in ms}
    steps_up = [bubbles[b] - bubbles[a] for a, b in zip(sorted(ms), sorted(ms)[1:], strict=False)]
    at_big = over_seeds((b - theory[big] for b in per_step[big]), over="timed steps")
    measures = [
        Measure.close_to(f"GPipe bubble at M={big}, p={ranks} on dedicated cores (CPU time) − theory "
                         f"{theory[big]:.3f}", at_big, 0.0, BUBBLE_TOLERANCE,
                         f"bubble O((K−1)/(M+K−1)) = {theory[big]:.3f}; negligible when M ≥ 4K"),
        Measure.at_least(f"GPipe bubble falls from M={small} to M={big} (points, medians over the steps)",
                         100 * (bubbles[small] - bubbles[big]), 50 * (theory[small] - theory[big]),
                         f"{100 * (theory[small] - theory[big]):.0f} points"),
        Measure.at_most("GPipe bubble's largest rise from one M to the next (points; it should fall)",
                        100 * max(steps_up, default=0.0), 3.0, "falls with every M"),
    ]
    if big in onef:
        act = onef[big]["memory"][0]["activations"] / max(1, gpipe[big]["memory"][0]["activations"])
        measures.append(Measure.at_most(f"1F1B ÷ GPipe activations kept on the first stage at M={big}", act, 0.5,
                                        f"at most p = {ranks} of {big} micro-batches in flight: {ranks / big:.2f}"))
        one_big = over_seeds((b - theory[big] for b in replayed_bubbles(onef[big])), over="timed steps")
        measures.append(Measure.close_to(f"1F1B bubble at M={big} on dedicated cores − theory {theory[big]:.3f}",
                                         one_big, 0.0, BUBBLE_TOLERANCE,
                                         "the same bubble as GPipe (Narayanan et al. 2021)"))
    details = {"bubble": {str(m): bubbles[m] for m in ms}, "theory": {str(m): theory[m] for m in ms},
               "bubble_per_step": {str(m): v for m, v in per_step.items()},
               "bubble_wall_clock": {str(m): median_bubble(r) for m, r in gpipe.items()},
               "bubble_window": {str(m): r["bubble"] for m, r in gpipe.items()},
               "bubble_1f1b": {str(m): median(replayed_bubbles(r)) for m, r in onef.items()},
               "activations_first_stage": {f"{r['mode']} M={r['microbatches']}": r["memory"][0]["activations"]
                                           for r in out["rows"]},
               "samples_per_s": {f"{r['mode']} M={r['microbatches']}": r["samples_per_s"] for r in out["rows"]},
               "stages": out["stages"], "cpu_share": {f"{r['mode']} M={r['microbatches']}": r.get("cpu_share")
                                                      for r in out["rows"]}}
    report(progress, 1.0, f"GPipe bubble at M={big}: {bubbles[big]:.2f} (theory {theory[big]:.2f})")
    return Reproduction(tuple(measures), details)


def model_parallel_slower(progress: Any = None, ranks: int = 2, batch_size: int = 256,
                          widths: str = "512,512,512,512", steps: int = 10, warmup_steps: int = 2,
                          repeats: int = 4) -> Reproduction:
    """Single process against naive model parallelism (whole batch, stages one per rank), ``repeats`` times: per
    timed step of model parallelism, its time on dedicated cores (span less the descheduled time) ÷ the single
    process's median one; each stage's share of the computing (CPU time); how many stages compute at once. A broken
    set-up: stages that cannot be balanced (``widths="2048,16,16,16"``). Four repeats, four baselines: with two, a
    run's mean step-time ratio ranged 1.03–1.10 around ~1.07 on a 2-core machine, and 1 run in ~10 fell under the
    2 % band's 95 % margin (CI's slow step, twice in one run)."""
    from studio.engine.parallel.launch import run_parallel

    request = ParallelRequest(modes=("single", "model"), ranks=ranks, batch_size=batch_size, widths=_widths(widths),
                              steps=steps, warmup_steps=warmup_steps, timeline_steps=steps - warmup_steps)
    ratios: list[float] = []
    split: list[list[float]] = []
    at_once: list[float] = []
    wall, speeds, shares = [], [], []
    for i in range(repeats):
        report(progress, i / repeats, f"single process and {ranks}-stage model parallelism ({i + 1}/{repeats})")

        def inner(fraction: float, text: str, i: int = i) -> None:
            report(progress, (i + 0.95 * fraction) / repeats, text)

        out = run_parallel(request, inner)
        single, model = out["rows"][0], out["rows"][1]
        base = statistics.median(dedicated_spans(single))
        ratios += [span / base for span in dedicated_spans(model)]
        split += [s for s in work_split(model) if len(s) == ranks]
        at_once += overlap(model)
        wall.append(statistics.median(step_spans(model)) / statistics.median(step_spans(single)))
        speeds.append(model["samples_per_s"] / single["samples_per_s"])
        shares.append({"single": single.get("cpu_share"), "model": model.get("cpu_share")})
    ratio = over_seeds(ratios, over="timed steps")
    stage_work = [over_seeds((s[r] for s in split), over="timed steps") for r in range(ranks)]
    top = max(stage_work, key=lambda e: e.mean)
    together = over_seeds(at_once, over="timed steps")
    measures = (
        Measure.above("model-parallel step time ÷ single-process step time (on dedicated cores: less the time "
                      "descheduled)", ratio, SLOWER,
                      "slower than one device (PyTorch's tutorial: ~7 % slower, ResNet-50 on 2 GPUs)"),
        Measure.inside(f"each stage's share of the computing (CPU time; largest of {ranks}, 1/p = {1 / ranks:.2f})",
                       top, 0.5 / ranks, 1.3 / ranks, "one stage works at a time: each ≈ 1/p (GPipe, Fig. 2b)"),
        Measure.below("stages computing a forward or backward at once while any does (1: one at a time)",
                      together, 1.05, "1: the stages never overlap"),
    )
    details = {"step_time_ratio": ratios, "step_time_ratio_wall_clock": wall, "samples_per_s_ratio": speeds,
               "stage_work": [e.mean for e in stage_work], "cpu_share": shares}
    report(progress, 1.0, f"model parallel {ratio.mean:.2f}× the single step time")
    return Reproduction(measures, details)
