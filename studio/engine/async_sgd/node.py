"""One rpc process of the study (``python -m studio.engine.async_sgd.node --rank R --world N --port P
--request JSON``): rank 0 is the parameter server ("ps"), ranks 1…k the workers ("worker0"…). The server runs
the rpc modes one after another and prints JSON lines on stdout: ``progress``, then ``result`` (its rows)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from studio.core.contracts.async_sgd import LABELS, RPC_MODES, AsyncRequest, request_from_dict
from studio.engine.async_sgd import model as model_lib
from studio.engine.async_sgd import server as server_lib

SHUTDOWN_S = 20.0  # rpc.shutdown waits this long for the others at most (the parent kills what is left)


def _options(request: AsyncRequest, port: int) -> Any:
    from torch.distributed import rpc

    return rpc.TensorPipeRpcBackendOptions(num_worker_threads=max(16, 2 * request.workers + 4), rpc_timeout=120,
                                          init_method=f"tcp://127.0.0.1:{port}")


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def run_server(request: AsyncRequest, world: int, port: int) -> None:
    import torch
    from torch.distributed import rpc

    device = "cuda:0" if request.device == "cuda" and torch.cuda.is_available() else "cpu"
    data = model_lib.load(request.dataset, request.seed)
    ps = server_lib.ParameterServer(request, data, device)
    server_lib.SERVER = ps
    rpc.init_rpc("ps", rank=0, world_size=world, rpc_backend_options=_options(request, port))
    modes = [m for m in request.run_modes() if m in RPC_MODES]
    ps.wait_all_waiting()
    phases = []
    for i, mode in enumerate(modes):
        def report(fraction: float, i: int = i, mode: str = mode) -> None:
            _emit({"type": "progress", "mode": mode, "phase": i, "phases": len(modes), "fraction": fraction})

        ps.start_phase(i, mode)
        ps.wait_all_waiting(report)
        phases.append(ps.stats())
        _emit({"type": "progress", "mode": mode, "phase": i, "phases": len(modes), "fraction": 1.0})
    ps.finish()
    rpc.shutdown(graceful=True, timeout=SHUTDOWN_S)
    _emit({"type": "result", "rows": [row(request, data, p) for p in phases]})


def row(request: AsyncRequest, data: Any, phase: dict[str, Any]) -> dict[str, Any]:
    """A mode's ``ModeResult`` from its stats and weight snapshots."""
    curve, accuracy = model_lib.evaluate_snapshots(data, request.widths, request.seed, phase.pop("snapshots"))
    seconds = max(phase["seconds"], 1e-9)
    return {"mode": phase["mode"], "label": LABELS[phase["mode"]], "updates": phase["updates"],
            "gradients": phase["gradients"], "dropped": phase["dropped"], "seconds": round(phase["seconds"], 4),
            "updates_per_s": phase["updates"] / seconds, "gradients_per_s": phase["gradients"] / seconds,
            "curve": curve, "final_loss": curve[-1]["loss"] if curve else float("nan"), "test_acc": accuracy,
            "staleness": phase["staleness"], "mean_staleness": phase["mean_staleness"],
            "max_staleness": phase["max_staleness"], "worker_updates": phase["worker_updates"]}


def run_worker(request: AsyncRequest, worker: int, world: int, port: int) -> None:
    from torch.distributed import rpc

    from studio.core.demos.training import Batches

    data = model_lib.load(request.dataset, request.seed)
    net = model_lib.build(data, request.widths, request.seed)
    x, y = data.train.x, data.train.y
    delay = request.delay_of(worker)
    rpc.init_rpc(f"worker{worker}", rank=worker + 1, world_size=world, rpc_backend_options=_options(request, port))
    phase = -1
    while True:
        phase, _mode = rpc.rpc_sync("ps", server_lib.wait_phase, args=(worker, phase), timeout=0)
        if phase < 0:
            break
        batches = Batches(len(y), request.batch_size, request.seed + 1 + worker)  # the same batches every mode
        while True:
            version, weights = rpc.rpc_sync("ps", server_lib.pull, timeout=0)
            if version < 0:
                break
            model_lib.load_weights(net, weights)
            idx = batches.next()
            grads, _loss = model_lib.gradient(net, x[idx], y[idx])
            if delay:
                time.sleep(delay)  # a straggler: its gradient arrives late (and stale)
            if rpc.rpc_sync("ps", server_lib.push, args=(worker, version, grads), timeout=0):
                break
    rpc.shutdown(graceful=True, timeout=SHUTDOWN_S)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="one process of the async SGD study (internal)")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--request", required=True)
    a = p.parse_args(argv)
    import torch

    model_lib.exit_with_parent()
    torch.set_num_threads(1)  # k + 1 processes share the cores
    request = request_from_dict(json.loads(a.request))
    if a.rank == 0:
        run_server(request, a.world, a.port)
    else:
        run_worker(request, a.rank - 1, a.world, a.port)


if __name__ == "__main__":
    from studio.engine.jobs.exit import exit_without_finalising

    exit_without_finalising(main)
