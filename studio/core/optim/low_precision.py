"""Adam/AdamW with its moments stored in bfloat16, as Zhai et al. 2022 ("Scaling Vision Transformers", §3.4)
keep Adam's first moment: the optimizer state shrinks from 2× to 1.5× (first moment) or 1× (both moments) the
parameters' float32 bytes.

torch.optim.Adam keeps its state in the parameter's dtype, so this is a small variant: the arithmetic of a
step is float32 (the stored moment is widened, updated, rounded back to bfloat16 by round-to-nearest), and the
update is Adam's (Kingma & Ba 2015), with AdamW's decoupled weight decay when ``decoupled``.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch.optim import Optimizer

from studio.core.optim.custom import Closure, evaluate

STATE_DTYPES = ("fp32", "bf16_first", "bf16_both")  # which moments are kept in bfloat16


class LowPrecisionAdam(Optimizer):
    """Adam (or AdamW, ``decoupled=True``) whose first moment (``bf16_first``) or both moments (``bf16_both``)
    are stored in bfloat16."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, decoupled: bool = False,
                 state_dtype: str = "bf16_first") -> None:
        if state_dtype not in STATE_DTYPES:
            raise ValueError(f"state_dtype must be one of {STATE_DTYPES}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "decoupled": decoupled, "state_dtype": state_dtype})

    @torch.no_grad()
    def step(self, closure: Closure = None) -> torch.Tensor | None:  # type: ignore[override]  # see Closure
        loss = evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            m_dtype = torch.bfloat16 if group["state_dtype"] != "fp32" else torch.float32
            v_dtype = torch.bfloat16 if group["state_dtype"] == "bf16_both" else torch.float32
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.float()
                state = self.state[p]
                if not state:
                    state["step"] = torch.zeros((), dtype=torch.float32)
                    state["exp_avg"] = torch.zeros_like(p, dtype=m_dtype)
                    state["exp_avg_sq"] = torch.zeros_like(p, dtype=v_dtype)
                state["step"] += 1
                t = float(state["step"])
                if group["weight_decay"]:
                    if group["decoupled"]:
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    else:
                        grad = grad.add(p.float(), alpha=group["weight_decay"])
                m = state["exp_avg"].float().lerp_(grad, 1 - beta1)
                v = state["exp_avg_sq"].float().mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                state["exp_avg"].copy_(m)
                state["exp_avg_sq"].copy_(v)
                denom = (v / (1 - beta2 ** t)).sqrt_().add_(group["eps"])
                p.addcdiv_(m.to(p.dtype), denom.to(p.dtype), value=-group["lr"] / (1 - beta1 ** t))
        return loss

