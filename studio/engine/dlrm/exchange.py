"""The all-to-all of DLRM's hybrid parallelism as one autograd function: forward, each rank sends every other
rank the vectors its tables looked up for that rank's samples (and receives, from every rank, its own samples'
vectors of that rank's tables); backward, the gradients of those vectors go back the same way
(``all_to_all_single`` with the splits swapped). Its bytes are counted where they are sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.engine.allreduce.traffic import Spans


@dataclass
class ExchangeMeter:
    """Bytes this rank put into the all-to-alls of the current step (both directions), and its spans."""

    rank: int
    spans: Spans
    fault: str = ""
    step: int = 0
    forward: int = 0  # bytes of the input of the forward all-to-all (its own samples' share included)
    backward: int = 0
    off_rank: int = 0  # the forward's bytes that left this rank
    received: int = 0
    log: list[tuple[int, int, int]] = field(default_factory=list)  # per finished step: (forward, backward, off)

    def close_step(self) -> None:
        self.log.append((self.forward, self.backward, self.off_rank))
        self.forward = self.backward = self.off_rank = self.received = 0


def _all_to_all(out: Any, data: Any, out_splits: list[int], in_splits: list[int], group: Any) -> None:
    import torch.distributed as dist

    dist.all_to_all_single(out, data, output_split_sizes=out_splits, input_split_sizes=in_splits, group=group)


class AllToAll:
    """``AllToAll.apply(flat, send, recv, group, meter)``: ``flat`` is this rank's vectors for every rank's
    samples, rank by rank (``send[q]`` numbers for rank q); the result is every rank's vectors for this rank's
    samples (``recv[q]`` numbers from rank q). Built on first use (torch is imported then)."""

    _function: Any = None

    @classmethod
    def apply(cls, flat: Any, send: list[int], recv: list[int], group: Any, meter: ExchangeMeter) -> Any:
        if cls._function is None:
            cls._function = _make_function()
        return cls._function.apply(flat, send, recv, group, meter)


def _make_function() -> Any:
    import torch

    class _AllToAll(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, flat: Any, send: list[int], recv: list[int], group: Any,
                    meter: ExchangeMeter) -> Any:
            ctx.send, ctx.recv, ctx.group, ctx.meter = send, recv, group, meter
            out = flat.new_empty(sum(recv))
            with meter.spans.span("all-to-all", meter.step):
                _all_to_all(out, flat.contiguous(), recv, send, group)
            size = flat.element_size()
            meter.forward += flat.numel() * size
            meter.off_rank += (flat.numel() - send[meter.rank]) * size
            meter.received += out.numel() * size
            return out

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            meter: ExchangeMeter = ctx.meter
            grad = grad.contiguous()
            back = grad.new_zeros(sum(ctx.send))
            if meter.fault == "no-backward-exchange":  # broken: only this rank's own samples' gradients come back
                mine_at = sum(ctx.send[:meter.rank])
                grad_at = sum(ctx.recv[:meter.rank])
                back[mine_at:mine_at + ctx.send[meter.rank]] = grad[grad_at:grad_at + ctx.recv[meter.rank]]
                return back, None, None, None, None
            with meter.spans.span("all-to-all", meter.step):
                _all_to_all(back, grad, ctx.send, ctx.recv, ctx.group)
            meter.backward += grad.numel() * grad.element_size()
            return back, None, None, None, None

    return _AllToAll
