"""A realistic ``ParallelResult`` built without torch, for the page's tests and screenshots: 2 ranks, the five
modes, pipeline M = 1, 2, 4, 8, timelines from a small dependency schedule of the GPipe and 1F1B orders (forward,
backward, send/recv, all-reduce, optimizer, idle between), so every field of the contract is filled."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.parallel import Interval, ModeResult, ParallelResult, RankMemory

F_MS, B_MS, SEND_MS, OPT_MS, ALLREDUCE_MS = 6.0, 12.0, 0.4, 1.5, 3.0  # one stage's forward/backward of the batch
WIDTHS = (512, 512, 512)
LAYERS = [(784, 512), (512, 512), (512, 512), (512, 10)]
NAMES = ["fc1", "fc2", "fc3", "fc4"]
STEPS, TIMELINE_STEPS, BATCH = 30, 3, 64


def _iv(rank: int, kind: str, start: float, end: float, step: int, mb: int | None) -> Interval:
    return Interval(rank=rank, kind=kind, start=start / 1000, end=end / 1000, step=step, microbatch=mb)


def _pipeline_step(p: int, m: int, order: str, t0: float, step: int) -> tuple[list[Interval], float]:
    """One step of a p-stage pipeline with m micro-batches, each stage running its ops in ``order``'s sequence
    as soon as the op it depends on (the previous stage's forward, the next stage's backward) has arrived."""
    f, b = F_MS / m, B_MS / m
    ops: list[list[tuple[str, int]]] = []
    for s in range(p):
        if order == "gpipe":
            ops.append([("F", i) for i in range(m)] + [("B", i) for i in range(m)])
        else:  # 1F1B: warm-up forwards, then one forward one backward, then the remaining backwards
            warm = min(p - 1 - s, m)
            seq = [("F", i) for i in range(warm)]
            nf, nb = warm, 0
            while nb < m:
                if nf < m:
                    seq.append(("F", nf))
                    nf += 1
                seq.append(("B", nb))
                nb += 1
            ops.append(seq)
    done: dict[tuple[str, int, int], float] = {}
    free = [t0] * p
    pos = [0] * p
    out: list[Interval] = []
    while any(pos[s] < len(ops[s]) for s in range(p)):
        for s in range(p):
            while pos[s] < len(ops[s]):
                kind, i = ops[s][pos[s]]
                dep = ("F", s - 1, i) if kind == "F" and s > 0 else ("B", s + 1, i) if kind == "B" and s < p - 1 \
                    else None
                if dep is not None and dep not in done:
                    break
                ready = done[dep] + SEND_MS if dep is not None else t0
                start = max(free[s], ready)
                if start > free[s]:
                    out.append(_iv(s, "idle", free[s], start - (SEND_MS if dep else 0), step, None))
                if dep is not None:
                    out.append(_iv(s, "recv", start - SEND_MS, start, step, i))
                end = start + (f if kind == "F" else b)
                out.append(_iv(s, "forward" if kind == "F" else "backward", start, end, step, i))
                sends = (kind == "F" and s < p - 1) or (kind == "B" and s > 0)
                if sends:
                    out.append(_iv(s, "send", end, end + SEND_MS / 2, step, i))
                done[(kind, s, i)] = end
                free[s] = end + (SEND_MS / 2 if sends else 0)
                pos[s] += 1
    last = max(free)
    for s in range(p):
        if free[s] < last:
            out.append(_iv(s, "idle", free[s], last, step, None))
        out.append(_iv(s, "optimizer", last, last + OPT_MS / p, step, None))
    return out, last + OPT_MS / p


def _stages(p: int) -> list[list[int]]:
    """The layers' indices per stage: contiguous, as even as they go (p ≤ 4)."""
    cuts = [round(i * len(LAYERS) / p) for i in range(p + 1)]
    return [list(range(cuts[i], cuts[i + 1])) for i in range(p)]


def _memory(mode: str, p: int, m: int) -> list[RankMemory]:
    params = [(i * o + o) * 4 for i, o in LAYERS]
    act_full = BATCH * sum(o for _, o in LAYERS) * 4 * 2
    if mode == "single":
        total = sum(params)
        return [RankMemory(rank=0, parameters=total, gradients=total, optimizer=total, activations=act_full,
                           layers=NAMES)]
    if mode == "ddp":
        total = sum(params)
        return [RankMemory(rank=r, parameters=total, gradients=total, optimizer=total, activations=act_full // p,
                           layers=NAMES) for r in range(p)]
    per_stage = [sum(params[i] for i in stage) for stage in _stages(p)]
    in_flight = [m if mode != "pipeline-1f1b" else min(m, p - s) for s in range(p)]
    return [RankMemory(rank=s, parameters=per_stage[s], gradients=per_stage[s], optimizer=per_stage[s],
                       activations=act_full // p * in_flight[s] // m,
                       layers=[NAMES[i] for i in _stages(p)[s]]) for s in range(p)]


def _row(mode: str, p: int, m: int, gap: float) -> ModeResult:
    timeline: list[Interval] = []
    t = 0.0
    for step in range(TIMELINE_STEPS):
        if mode == "single":
            ivs = [_iv(0, "forward", t, t + 2 * F_MS, step, None), _iv(0, "backward", t + 2 * F_MS,
                                                                     t + 2 * F_MS + 2 * B_MS, step, None)]
            end = t + 2 * F_MS + 2 * B_MS
            ivs.append(_iv(0, "optimizer", end, end + OPT_MS, step, None))
            end += OPT_MS
        elif mode == "ddp":
            ivs, end = [], 0.0
            for r in range(p):
                jitter = 0.8 * r
                fe = t + 2 * F_MS / p * 1.3 + jitter
                be = fe + 2 * B_MS / p * 1.3
                ivs += [_iv(r, "forward", t, fe, step, None), _iv(r, "backward", fe, be, step, None)]
                end = max(end, be)
            for r in range(p):
                be = ivs[2 * r + 1]["end"] * 1000
                if be < end:
                    ivs.append(_iv(r, "idle", be, end, step, None))
                ivs += [_iv(r, "allreduce", end, end + ALLREDUCE_MS, step, None),
                        _iv(r, "optimizer", end + ALLREDUCE_MS, end + ALLREDUCE_MS + OPT_MS, step, None)]
            end += ALLREDUCE_MS + OPT_MS
        else:
            ivs, end = _pipeline_step(p, m, "1f1b" if mode == "pipeline-1f1b" else "gpipe", t, step)
        timeline += ivs
        t = end
    step_ms = t / TIMELINE_STEPS
    busy = []
    for r in range(1 if mode == "single" else p):
        work = sum(iv["end"] - iv["start"] for iv in timeline
                   if iv["rank"] == r and iv["kind"] in ("forward", "backward", "optimizer"))
        busy.append(work / (t / 1000))
    piped = mode in ("model", "pipeline-gpipe", "pipeline-1f1b")
    idle = [sum(iv["end"] - iv["start"] for iv in timeline if iv["rank"] == r and iv["kind"] == "idle")
            / (t / 1000) for r in range(p)]
    losses = [[float((k + 1) * BATCH), 2.3 * 0.93 ** k + 0.25 + gap * (k % 3 - 1)] for k in range(STEPS)]
    return ModeResult(mode=mode, ranks=1 if mode == "single" else p, microbatches=m,
                      samples_per_s=BATCH / (step_ms / 1000), step_ms=step_ms, losses=losses,
                      final_loss=losses[-1][1], max_loss_gap=gap, timeline=timeline, busy=busy,
                      bubble=sum(idle) / p if piped else None,
                      bubble_theory=(p - 1) / (m + p - 1) if piped else None, memory=_memory(mode, p, m))


def make_result(p: int = 2, microbatches: tuple[int, ...] = (1, 2, 4, 8), bad_gap: float = 0.0) -> dict[str, Any]:
    """The result of ``studio parallel --ranks p`` over the five modes; ``bad_gap`` puts a DDP loss off the curve."""
    rows = [_row("single", p, 1, 0.0), _row("ddp", p, 1, bad_gap or 2e-7), _row("model", p, 1, 1e-7)]
    for mode in ("pipeline-gpipe", "pipeline-1f1b"):
        rows += [_row(mode, p, m, 3e-7) for m in microbatches]
    stages = [[NAMES[i] for i in stage] for stage in _stages(p)]
    return dict(ParallelResult(rows=rows, stages=stages, device="cpu", cores=2, dataset="fashion_mnist_small",
                               batch_size=BATCH, steps=STEPS, ranks=p, loss_tolerance=1e-4))
