"""Hogwild (Recht, Ré, Wright & Niu 2011): k processes train ONE model held in shared memory
(``model.share_memory()``), each its own SGD steps on its own mini-batches, with no lock around the update.

``python -m studio.engine.async_sgd.hogwild --request JSON`` spawns the k workers (torch.multiprocessing,
spawn), starts them together, counts the applied updates in a shared counter (the "version": a gradient's
staleness is how many updates other workers applied between its read of the weights and its write), takes
snapshots of the shared weights as it goes, and prints JSON lines like the parameter server: ``progress`` then
``result``. A worker that dies ends the study: one sentence on stderr naming it, exit 3, no worker left.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Any

from studio.core.contracts.async_sgd import LABELS, MAX_STALENESS_BINS, AsyncRequest, request_from_dict
from studio.engine.async_sgd import model as model_lib
from studio.engine.async_sgd.server import schedule

POLL_S = 0.005


def _worker(worker: int, values: dict[str, Any], net: Any, x: Any, y: Any, counter: Any, stop: Any, ready: Any,
            start: Any, hist: Any) -> None:
    import torch
    from torch import nn

    from studio.core.demos.training import Batches

    model_lib.exit_with_parent()
    torch.set_num_threads(1)
    request = request_from_dict(values)
    delay = request.delay_of(worker)
    opt = torch.optim.SGD(net.parameters(), lr=request.lr)  # each worker's own step on the shared tensors
    batches = Batches(len(y), request.batch_size, request.seed + 1 + worker)
    with ready.get_lock():
        ready.value += 1
    start.wait()
    while not stop.is_set():
        read = counter.value
        idx = batches.next()
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
        if delay:
            time.sleep(delay)
        if stop.is_set():
            break
        opt.step()  # lock-free: other workers may be writing the same weights
        with counter.get_lock():
            version = counter.value
            counter.value = version + 1
        hist[worker, min(version - read, MAX_STALENESS_BINS - 1)] += 1
        if request.updates and version + 1 >= request.updates:
            stop.set()


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def run(request: AsyncRequest) -> dict[str, Any]:
    import torch
    import torch.multiprocessing as mp

    data = model_lib.load(request.dataset, request.seed)
    net = model_lib.build(data, request.widths, request.seed)
    net.share_memory()
    x, y = data.train.x.share_memory_(), data.train.y.share_memory_()
    ctx = mp.get_context("spawn")
    k = request.workers
    counter, ready, stop, start = ctx.Value("q", 0), ctx.Value("i", 0), ctx.Event(), ctx.Event()
    hist = torch.zeros(k, MAX_STALENESS_BINS, dtype=torch.long).share_memory_()
    values = {**request.__dict__}
    procs = [ctx.Process(target=_worker, args=(w, values, net, x, y, counter, stop, ready, start, hist), daemon=True,
                         name=f"hogwild-worker-{w}") for w in range(k)]
    for p in procs:
        p.start()
    try:
        while ready.value < k:  # every worker at the start line (or one that died on the way)
            time.sleep(0.05)
            _check(procs)
        start.set()
        t0 = time.perf_counter()
        snaps: list[tuple[int, float, list[Any]]] = [(0, 0.0, model_lib.snapshot(net))]
        plan = schedule(request)
        last_report = 0.0
        while True:
            time.sleep(POLL_S)
            t, done = time.perf_counter() - t0, counter.value
            over = stop.is_set() or (request.updates and done >= request.updates) or \
                (not request.updates and t >= request.seconds)
            if over:
                stop.set()
                snaps.append((done, t, model_lib.snapshot(net)))
                break
            if plan.due(done, t):
                snaps.append((done, t, model_lib.snapshot(net)))
            if t - last_report > 0.5:
                last_report = t
                fraction = done / request.updates if request.updates else t / request.seconds
                print(json.dumps({"type": "progress", "mode": "hogwild", "phase": 0, "phases": 1,
                                  "fraction": min(1.0, fraction)}), flush=True)
            _check(procs)
        elapsed = time.perf_counter() - t0
        for p in procs:
            p.join(timeout=10)
        _check(procs)
    finally:
        stop.set()
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
    per_worker = [int(v) for v in hist.sum(dim=1)]
    counts = [int(v) for v in hist.sum(dim=0)]
    last = max((i for i, c in enumerate(counts) if c), default=-1)
    counts = counts[:last + 1]
    applied = sum(per_worker)
    curve, accuracy = model_lib.evaluate_snapshots(data, request.widths, request.seed, snaps)
    total_staleness = sum(i * c for i, c in enumerate(counts))
    return {"mode": "hogwild", "label": LABELS["hogwild"], "updates": applied, "gradients": applied, "dropped": 0,
            "seconds": round(elapsed, 4), "updates_per_s": applied / elapsed, "gradients_per_s": applied / elapsed,
            "curve": curve, "final_loss": curve[-1]["loss"], "test_acc": accuracy, "staleness": counts,
            "mean_staleness": total_staleness / applied if applied else 0.0, "max_staleness": max(last, 0),
            "worker_updates": per_worker}


class WorkerDied(Exception):
    pass


def _check(procs: list[Any]) -> None:
    for w, p in enumerate(procs):
        code = p.exitcode
        if code is not None and code != 0:
            how = f"was killed by {_signal_name(code)}" if code < 0 else f"exited with code {code}"
            raise WorkerDied(f"Hogwild worker {w} (pid {p.pid}) {how}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Hogwild: k shared-memory workers (internal)")
    p.add_argument("--request", required=True)
    a = p.parse_args(argv)
    import torch

    model_lib.exit_with_parent()
    torch.set_num_threads(1)
    try:
        result = run(request_from_dict(json.loads(a.request)))
    except WorkerDied as err:
        print(str(err), file=sys.stderr, flush=True)
        sys.exit(3)
    print(json.dumps({"type": "result", "rows": [result]}), flush=True)


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
