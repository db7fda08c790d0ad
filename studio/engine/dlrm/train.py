"""A step of the model in one process (every table, the whole batch) and on one hybrid rank (its own tables,
its share of the batch): the same maths, measured on the rank's timeline.

On a hybrid rank, of the global batch B split in p shares of b = B/p samples: look up this rank's tables for all
B samples → the forward all-to-all gives every rank its b samples' vectors of every table → the MLPs and the
interaction on those b samples → backward of loss/p (the backward all-to-all returns each table's gradients to its
owner) → an all-reduce (sum) of the MLPs' gradients and the loss → Adagrad. Summing the ranks' loss/p gradients is the
gradient of the global batch's mean loss, so every rank's MLPs stay equal to the single process's."""

from __future__ import annotations

from typing import Any

from studio.core.contracts.dlrm import owners
from studio.engine.allreduce.traffic import Spans
from studio.engine.dlrm.exchange import AllToAll, ExchangeMeter
from studio.engine.dlrm.model import build_mlps, build_table, head


def optimizer(params: list[Any], lr: float) -> Any:
    """Adagrad (as DLRM trains its embeddings; the paper compares it with SGD, Fig. 5): one accumulator per
    parameter, created at once, so a table's optimizer state is as large as the table and lives where it does.
    (With SGD the tables' pairwise part does not move in a thousand steps from DLRM's small initialisation.)
    ε = 1e-6, not torch's 1e-10: Adagrad's first step on a parameter is lr·g/(|g| + ε), so with 1e-10 a gradient
    at the level of float rounding (sums in another order: one process against p ranks) gets a full step of lr,
    and the two trainings part by 1e-4 within 30 steps; with 1e-6 they agree to 1e-7 over 100 steps."""
    import torch

    return torch.optim.Adagrad(params, lr=lr, eps=1e-6)


def optimizer_bytes(opt: Any) -> int:
    """Bytes of the optimizer's state (Adagrad's accumulators)."""
    import torch

    return int(sum(v.numel() * v.element_size() for s in opt.state.values() for v in s.values()
                   if torch.is_tensor(v) and v.dim() > 0))


def _stack(tables: dict[int, Any], which: list[int], idx: Any) -> Any:
    """The looked-up vectors [n, len(which), d] of tables ``which`` for the rows ``idx`` [n, T]."""
    import torch

    return torch.stack([tables[t](idx[:, t]) for t in which], dim=1)


class SingleProcess:
    """The reference: every table and both MLPs in this process, the whole batch per step."""

    def __init__(self, req: dict[str, Any], seed: int, device: Any, spans: Spans) -> None:

        self.spans = spans
        self.bottom, self.top = (m.to(device) for m in build_mlps(req["dense"], req["bottom"], req["top"],
                                                                    req["dim"], req["tables"], seed))
        self.tables = {t: build_table(t, req["rows"], req["dim"], seed).to(device) for t in range(req["tables"])}
        self.mlp_params = list(self.bottom.parameters()) + list(self.top.parameters())
        self.table_params = [e.weight for e in self.tables.values()]
        self.opt = optimizer(self.mlp_params + self.table_params, req["lr"])
        self.step_no = 0

    def step(self, dense: Any, idx: Any, clicks: Any) -> float:
        with self.spans.span("forward", self.step_no):
            loss = head(self.bottom, self.top, dense, _stack(self.tables, list(self.tables), idx), clicks)
        self.opt.zero_grad(set_to_none=True)
        with self.spans.span("backward", self.step_no):
            loss.backward()
        with self.spans.span("optimizer", self.step_no):
            self.opt.step()
        return float(loss.detach())


class HybridRank:
    """One rank: its tables (``owners``), both MLPs (replicated), its share of every batch."""

    def __init__(self, req: dict[str, Any], seed: int, rank: int, world: int, group: Any, device: Any,
                 spans: Spans) -> None:

        self.rank, self.world, self.group, self.spans = rank, world, group, spans
        self.split = owners(req["tables"], world)
        self.mine = self.split[rank]
        held = range(req["tables"]) if req["fault"] == "replicated-tables" else self.mine
        self.tables = {t: build_table(t, req["rows"], req["dim"], seed).to(device) for t in held}
        self.bottom, self.top = (m.to(device) for m in build_mlps(req["dense"], req["bottom"], req["top"],
                                                                    req["dim"], req["tables"], seed))
        self.mlp_params = list(self.bottom.parameters()) + list(self.top.parameters())
        self.table_params = [self.tables[t].weight for t in self.mine]
        self.opt = optimizer(self.mlp_params + self.table_params, req["lr"])
        self.meter = ExchangeMeter(rank, spans, req["fault"])
        self.dim = req["dim"]
        self.local = req["batch_size"] // world
        self.send = [self.local * len(self.mine) * self.dim] * world
        self.recv = [self.local * len(tables) * self.dim for tables in self.split]
        self.allreduced = 0  # bytes of one step's all-reduce

    def step(self, dense: Any, idx: Any, clicks: Any, step: int) -> float:
        import torch
        import torch.distributed as dist

        b, r, d = self.local, self.rank, self.dim
        mine = slice(r * b, (r + 1) * b)
        self.meter.step = step
        with self.spans.span("forward", step):
            flat = _stack(self.tables, self.mine, idx).reshape(-1)  # [B, n_r, d]: rank q's samples are block q
        out = AllToAll.apply(flat, self.send, self.recv, self.group, self.meter)
        with self.spans.span("forward", step):
            parts = out.split(self.recv)
            vectors = torch.cat([part.view(b, len(tables), d) for part, tables in zip(parts, self.split, strict=True)],
                                dim=1)  # rank order = table order
            loss = head(self.bottom, self.top, dense[mine], vectors, clicks[mine])
        self.opt.zero_grad(set_to_none=True)
        with self.spans.span("backward", step):
            (loss / self.world).backward()
        with self.spans.span("all-reduce", step):
            grads = [p.grad.reshape(-1) for p in self.mlp_params]
            flat_grads = torch.cat([*grads, (loss.detach() / self.world).reshape(1)])
            dist.all_reduce(flat_grads, group=self.group)
            at = 0
            for p, g in zip(self.mlp_params, grads, strict=True):
                p.grad.copy_(flat_grads[at:at + g.numel()].view_as(p.grad))
                at += g.numel()
        self.allreduced = flat_grads.numel() * flat_grads.element_size()
        with self.spans.span("optimizer", step):
            self.opt.step()
        self.meter.close_step()
        return float(flat_grads[-1])


def rss_bytes() -> int:
    """This process's resident memory now (VmRSS), 0 where /proc does not say."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0
