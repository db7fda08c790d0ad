"""Realistic ``AllreduceResult`` and ``DlrmResult`` built without torch, for the pages' tests: bytes from the
algorithms' schedules (the ring's uneven chunks included), times from a latency-plus-bandwidth model, timelines
laid out step by step as the engines record them (every rank's lane filled, idle between), losses of a model
that learns, memory counted as the engines count it."""

from __future__ import annotations

import math
from typing import Any

from studio.core.contracts.dlrm import exchange_bytes, owners, table_bytes

ALPHA, BETA = 4e-4, 2e-9  # seconds per exchange, per byte


def _ring_sent(p: int, n: int) -> list[int]:
    elements = n // 4
    chunks = [elements // p + (1 if c < elements % p else 0) for c in range(p)]
    sent = []
    for r in range(p):
        rs = sum(chunks[(r - s) % p] for s in range(p - 1))
        ag = sum(chunks[(r - s + 1) % p] for s in range(p - 1))
        sent.append(4 * (rs + ag))
    return sent


def _phases(algorithm: str, p: int, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if algorithm == "ring":
        t, chunk = 0.0, ALPHA + BETA * n / p
        for s in range(1, 2 * p - 1):
            kind = "reduce-scatter" if s < p else "all-gather"
            for r in range(p):
                out.append({"rank": r, "kind": kind, "start": t + 1e-4 * r, "end": t + chunk, "step": s})
                if kind == "reduce-scatter":
                    out.append({"rank": r, "kind": "reduce", "start": t + chunk, "end": t + 1.2 * chunk, "step": s})
            t += 1.25 * chunk
    elif algorithm == "server":
        gather = (p - 1) * (ALPHA + BETA * n)
        for r in range(1, p):
            out.append({"rank": r, "kind": "send", "start": 0.0, "end": ALPHA + BETA * n, "step": 0})
            out.append({"rank": r, "kind": "recv", "start": ALPHA + BETA * n, "end": 2.2 * gather, "step": 0})
        out += [{"rank": 0, "kind": "recv", "start": 0.0, "end": gather, "step": 0},
                {"rank": 0, "kind": "reduce", "start": gather, "end": 1.2 * gather, "step": 0},
                {"rank": 0, "kind": "send", "start": 1.2 * gather, "end": 2.2 * gather, "step": 0}]
    else:
        out = [{"rank": r, "kind": "all_reduce", "start": 0.0, "end": 2 * (ALPHA + BETA * n), "step": 0}
               for r in range(p)]
    end = max(i["end"] for i in out)
    filled = []
    for r in range(p):
        cursor = 0.0
        for i in sorted((i for i in out if i["rank"] == r), key=lambda i: i["start"]):
            if i["start"] > cursor:
                filled.append({**i, "kind": "idle", "start": cursor, "end": i["start"]})
            filled.append(i)
            cursor = i["end"]
        if end > cursor:
            filled.append({"rank": r, "kind": "idle", "start": cursor, "end": end, "step": 0})
    return filled


def make_allreduce(ranks: tuple[int, ...] = (2, 4, 8), sizes: tuple[int, ...] = (1 << 20, 16 << 20),
                   algorithms: tuple[str, ...] = ("ring", "server", "torch")) -> dict[str, Any]:
    rows = []
    for p in ranks:
        for n in sizes:
            for a in algorithms:
                if a == "ring":
                    sent: list[int] | None = _ring_sent(p, n)
                    model: list[float] | None = [2 * (p - 1) / p * n] * p
                    wall = 2 * (p - 1) * (ALPHA + BETA * n / p)
                elif a == "server":
                    sent, model = [(p - 1) * n] + [n] * (p - 1), [float((p - 1) * n)] + [float(n)] * (p - 1)
                    wall = 2 * (p - 1) * (ALPHA + BETA * n)
                else:
                    sent, model, wall = None, None, 2 * (p - 1) * (ALPHA + BETA * n / p) * 0.8
                cpu = [0.4 * wall * (3 if a == "server" and r == 0 else 1) for r in range(p)]
                rows.append({"algorithm": a, "ranks": p, "size": n, "sent": sent, "received": sent, "model": model,
                             "wall_s": [wall * (1 + 0.02 * r) for r in range(p)], "cpu_s": cpu, "max_error": 0.0,
                             "repeats": 3})
    p, n = max(ranks), max(sizes)
    return {"rows": rows, "timelines": {a: _phases(a, p, n) for a in algorithms}, "timeline_ranks": p,
            "timeline_size": n, "ranks": list(ranks), "sizes": list(sizes), "repeats": 3, "device": "cpu",
            "cores": 2, "load": 1.2, "seed": 0,
            "notes": ["torch's all_reduce is the reference for the result and the time; it does not report its bytes"]}


def make_dlrm(ranks: int = 2, tables: int = 8, rows: int = 100_000, dim: int = 16, batch: int = 256,
              steps: int = 100, gap: float = 1.2e-7) -> dict[str, Any]:
    single = [0.62 + 0.35 * math.exp(-s / 8) + 0.02 * math.sin(1.7 * s) for s in range(steps)]
    split = owners(tables, ranks)
    table = table_bytes(1, rows, dim)
    mlp = 36_036
    memory = [{"rank": r, "tables": t, "table_bytes": table * len(t), "mlp_bytes": mlp,
               "optimizer_bytes": table * len(t) + mlp, "gradient_bytes": 91_000, "exchange_bytes": 262_144,
               "rss_growth": int(2.003 * table * len(t))} for r, t in enumerate(split)]
    timeline, single_timeline = [], []
    for k, step in enumerate(range(3, 6)):
        t0 = 0.012 * k
        for r in range(ranks):
            spans = (("data", 0.0, 0.0008), ("forward", 0.0008, 0.0012), ("all-to-all", 0.0012, 0.004),
                     ("forward", 0.004, 0.005), ("backward", 0.005, 0.0058), ("all-to-all", 0.0058, 0.0075),
                     ("backward", 0.0075, 0.0078), ("all-reduce", 0.0078, 0.0098 + 0.0005 * r),
                     ("optimizer", 0.0098 + 0.0005 * r, 0.0115), ("idle", 0.0115, 0.012))
            timeline += [{"rank": r, "kind": kind, "start": t0 + a, "end": t0 + b, "step": step}
                         for kind, a, b in spans]
        single_timeline += [{"rank": 0, "kind": kind, "start": 0.007 * k + a, "end": 0.007 * k + b, "step": step}
                            for kind, a, b in (("data", 0.0, 0.0008), ("forward", 0.0008, 0.003),
                                               ("backward", 0.003, 0.005), ("optimizer", 0.005, 0.007))]
    volume = exchange_bytes(batch, tables, dim)
    return {"runs": [{"seed": 0, "single": single, "hybrid": [v + gap * (s % 2) for s, v in enumerate(single)],
                      "max_gap": gap}],
            "loss_tolerance": 1e-5, "equal": gap <= 1e-5, "owners": split, "memory": memory,
            "single_memory": {"rank": -1, "tables": list(range(tables)), "table_bytes": table * tables,
                              "mlp_bytes": mlp, "optimizer_bytes": table * tables + mlp, "gradient_bytes": 150_000,
                              "exchange_bytes": 0, "rss_growth": int(2.003 * table * tables)},
            "exchange": {"forward": [volume] * steps, "backward": [volume] * steps,
                         "off_rank": [volume * (ranks - 1) // ranks] * steps, "model": volume, "allreduce": mlp + 4},
            "timeline": timeline, "single_timeline": single_timeline, "step_ms": {"single": 7.1, "hybrid": 12.5},
            "shares": [{"all-to-all": 0.37, "all-reduce": 0.17, "forward": 0.12, "backward": 0.09, "data": 0.07,
                        "optimizer": 0.14, "idle": 0.04} for _ in range(ranks)],
            "floor": 0.453, "base": 0.629, "click_rate": 0.31, "ranks": ranks, "tables": tables, "rows": rows,
            "dim": dim, "batch_size": batch, "steps": steps, "lr": 0.05, "device": "cpu", "cores": 2, "load": 1.2}
