"""Optimizer and schedule registries (no torch here).

Optimizer builders: ``build(params, **values) -> torch.optim.Optimizer`` (builders.py).
Schedule builders: ``build(total_steps, steps_per_epoch, **values) -> Callable[[int], float]`` giving the
factor that multiplies the base learning rate at a step (schedules.py).

Tags: "full_batch" — the trainer feeds the whole training set as one batch (gradient descent proper);
"closure" — the optimizer's step re-evaluates the loss (Newton's method).
"""

from __future__ import annotations

from studio.core.contracts.registry import Entry, Param, Registry

OPTIMIZERS = Registry("optimizer")
SCHEDULES = Registry("schedule")

_B = "studio.core.optim.builders:"


def lr_param(default: float) -> Param:
    return Param("lr", "float", default, "learning rate η: the step size", 1e-7, 100.0, log=True)


WEIGHT_DECAY = Param("weight_decay", "float", 0.0, "L2 penalty λ: adds λw to the gradient", 0.0, 1.0)
MOMENTUM = Param("momentum", "float", 0.9, "momentum β: how much of the last step is kept", 0.0, 0.999)
BETA1 = Param("beta1", "float", 0.9, "decay of the gradient average (momentum)", 0.0, 0.9999)
BETA2 = Param("beta2", "float", 0.999, "decay of the squared-gradient average", 0.0, 0.99999)
EPS = Param("eps", "float", 1e-8, "added to the denominator for stability", 1e-12, 1.0, log=True)
TOLERANCE = Param("tolerance", "float", 0.0, "stop when the full-batch loss changes by less than this (0: never)",
                  0.0, 1.0, log=True)

OPTIMIZERS.add(Entry(
    "gd",
    "Full-batch gradient descent: one step per epoch on the gradient of the whole training set",
    (lr_param(0.1), WEIGHT_DECAY, TOLERANCE),
    builder=_B + "build_gd",
    info="w ← w − η∇F(w), ∇F over all training samples. On F(w) = ½wᵀDw it converges iff η < 2/max D_ii "
         "(Cauchy 1847). Stops early when |F_t − F_{t−1}| < tolerance.",
    tags=("full_batch",),
))
OPTIMIZERS.add(Entry(
    "sgd",
    "Stochastic gradient descent on mini-batches, with optional (Nesterov) momentum",
    (lr_param(0.05), Param("momentum", "float", 0.0, MOMENTUM.help, 0.0, 0.999),
     Param("nesterov", "bool", False, "evaluate the gradient at the look-ahead point (Nesterov)"), WEIGHT_DECAY),
    builder=_B + "build_sgd",
    info="w ← w − η g, g the mini-batch gradient (Robbins & Monro 1951); with momentum v ← βv + g, w ← w − ηv "
         "(torch.optim.SGD)",
))
OPTIMIZERS.add(Entry(
    "momentum",
    "SGD with momentum, learning rate outside the velocity (PyTorch's form)",
    (lr_param(0.05), MOMENTUM, WEIGHT_DECAY),
    builder=_B + "build_momentum",
    info="v ← βv + ∇F(w);  w ← w − ηv   (torch.optim.SGD). Same path as 'momentum_lr_inside' while η is "
         "constant; when η changes, this form rescales the whole velocity at once, the other only new gradients.",
))
OPTIMIZERS.add(Entry(
    "momentum_lr_inside",
    "SGD with momentum, learning rate inside the velocity (the classic heavy-ball form)",
    (lr_param(0.05), MOMENTUM, WEIGHT_DECAY),
    builder=_B + "build_momentum_lr_inside",
    info="v ← βv + η∇F(w);  w ← w − v   (Polyak 1964; Sutskever et al. 2013). Same path as 'momentum' while η is "
         "constant; after an η change the old velocity keeps its old step size, so the two forms differ.",
))
OPTIMIZERS.add(Entry(
    "nesterov",
    "SGD with Nesterov momentum: the gradient is taken where momentum is about to carry the weights",
    (lr_param(0.05), MOMENTUM, WEIGHT_DECAY),
    builder=_B + "build_nesterov",
    info="v ← βv + ∇F(w);  w ← w − η(∇F(w) + βv)   (Nesterov 1983; Sutskever et al. 2013; torch.optim.SGD)",
))
OPTIMIZERS.add(Entry(
    "adagrad",
    "AdaGrad: each weight's step shrinks with the sum of its squared gradients so far",
    (lr_param(0.01), Param("eps", "float", 1e-10, EPS.help, 1e-12, 1.0, log=True),
     Param("initial_accumulator", "float", 0.0, "starting value of the squared-gradient sum", 0.0, 10.0),
     WEIGHT_DECAY),
    builder=_B + "build_adagrad",
    info="s ← s + g²;  w ← w − η g/(√s + ε)   (Duchi, Hazan & Singer 2011; torch.optim.Adagrad)",
))
OPTIMIZERS.add(Entry(
    "rmsprop",
    "RMSProp: divides the step by a running average of the squared gradient",
    (lr_param(1e-3), Param("alpha", "float", 0.99, "decay of the squared-gradient average", 0.0, 0.99999), EPS,
     Param("momentum", "float", 0.0, MOMENTUM.help, 0.0, 0.999),
     Param("centered", "bool", False, "divide by the gradient's variance instead of its mean square"),
     WEIGHT_DECAY),
    builder=_B + "build_rmsprop",
    info="v ← αv + (1−α)g²;  w ← w − η g/(√v + ε)   (Hinton, Coursera lecture 6e, 2012; torch.optim.RMSprop)",
))
_ADAM = (lr_param(1e-3), BETA1, BETA2, EPS)
STATE_DTYPE = Param("state_dtype", "choice", "fp32",
                    "where Adam's moments are kept: fp32, the first moment in bfloat16 (bf16_first: state 1.5× the "
                    "weights' bytes instead of 2×, as Zhai et al. 2022 'Scaling Vision Transformers' do) or both "
                    "(bf16_both: 1×); the step's arithmetic stays float32 (core/optim/low_precision.py)",
                    choices=("fp32", "bf16_first", "bf16_both"))
OPTIMIZERS.add(Entry(
    "adam",
    "Adam: momentum on the gradient and a per-weight step size from its running square",
    (*_ADAM, WEIGHT_DECAY, STATE_DTYPE),
    builder=_B + "build_adam",
    info="m ← β1 m + (1−β1)g;  v ← β2 v + (1−β2)g²;  w ← w − η m̂/(√v̂ + ε), m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ)   "
         "(Kingma & Ba 2015; torch.optim.Adam)",
))
OPTIMIZERS.add(Entry(
    "adamw",
    "AdamW: Adam with weight decay applied to the weights directly, not through the gradient",
    (*_ADAM, Param("weight_decay", "float", 0.01, "decoupled decay λ: w ← w − ηλw each step", 0.0, 1.0),
     STATE_DTYPE),
    builder=_B + "build_adamw",
    info="w ← w − ηλw;  then Adam's step   (Loshchilov & Hutter 2019, 'Decoupled Weight Decay Regularization'; "
         "torch.optim.AdamW)",
))
OPTIMIZERS.add(Entry(
    "amsgrad",
    "AMSGrad: Adam whose squared-gradient average never decreases",
    (*_ADAM, WEIGHT_DECAY),
    builder=_B + "build_amsgrad",
    info="v̂_max ← max(v̂_max, v̂);  w ← w − η m̂/(√v̂_max + ε)   (Reddi, Kale & Kumar 2018; torch.optim.Adam(amsgrad))",
))
OPTIMIZERS.add(Entry(
    "nadam",
    "NAdam: Adam with Nesterov momentum",
    (lr_param(2e-3), BETA1, BETA2, EPS,
     Param("momentum_decay", "float", 4e-3, "ψ: warms the momentum coefficient up over the first steps", 0.0, 1.0),
     WEIGHT_DECAY),
    builder=_B + "build_nadam",
    info="μ_t = β1(1 − ½·0.96^{tψ});  w ← w − η[μ_{t+1} m/(1−Πμ_{≤t+1}) + (1−μ_t) g/(1−Πμ_{≤t})]/(√v̂ + ε)   "
         "(Dozat 2016; torch.optim.NAdam)",
))
OPTIMIZERS.add(Entry(
    "lamb",
    "LAMB: Adam's update rescaled layer by layer so each tensor moves in proportion to its size",
    (lr_param(1e-3), BETA1, BETA2, Param("eps", "float", 1e-6, EPS.help, 1e-12, 1.0, log=True), WEIGHT_DECAY),
    builder=_B + "build_lamb",
    info="u = m̂/(√v̂ + ε) + λw;  w ← w − η (‖w‖/‖u‖) u, per tensor   (You et al. 2020, 'Large Batch Optimization "
         "for Deep Learning: Training BERT in 76 minutes')",
))
OPTIMIZERS.add(Entry(
    "lars",
    "LARS: SGD momentum with a per-layer learning rate from the ratio of weight norm to gradient norm",
    (lr_param(0.1), MOMENTUM, WEIGHT_DECAY,
     Param("trust_coefficient", "float", 0.02, "trust coefficient: scales every layer's local rate", 1e-5, 1.0,
           log=True)),
    builder=_B + "build_lars",
    info="local = c‖w‖/(‖g‖ + λ‖w‖);  v ← βv + η·local·(g + λw);  w ← w − v, per tensor   "
         "(You, Gitman & Ginsburg 2017, 'Large Batch Training of Convolutional Networks')",
))
OPTIMIZERS.add(Entry(
    "lookahead",
    "Lookahead: any optimizer takes k fast steps, then the weights move a fraction α toward where it went",
    (
        Param("inner", "choice", "adam", "the optimizer that takes the fast steps",
              choices=("sgd", "momentum", "momentum_lr_inside", "nesterov", "adagrad", "rmsprop", "adam",
                       "adamw", "amsgrad", "nadam", "lamb", "lars")),
        lr_param(1e-3),
        Param("k", "int", 5, "fast steps between slow-weight updates", 1, 1000),
        Param("alpha", "float", 0.5, "slow step α: slow ← slow + α(fast − slow)", 0.01, 1.0),
        Param("inner_options", "str", "", "other settings of the inner optimizer, e.g. momentum=0.9, nesterov=true"),
    ),
    builder=_B + "build_lookahead",
    info="every k steps: φ ← φ + α(θ − φ);  θ ← φ  (the slow weights φ are an exponential moving average of the "
         "fast weights θ at the sync points)   (Zhang, Lucas, Hinton & Ba 2019, 'Lookahead Optimizer: k steps "
         "forward, 1 step back')",
))
OPTIMIZERS.add(Entry(
    "newton",
    "Newton's method: steps by the inverse Hessian times the gradient (small models only, full batch)",
    (
        lr_param(1.0),
        Param("damping", "float", 0.0, "δ added to the Hessian's diagonal (Levenberg–Marquardt damping)", 0.0, 100.0),
        Param("max_params", "int", 2000, "refuse models with more trainable parameters than this", 1, 20_000),
        TOLERANCE,
    ),
    builder=_B + "build_newton",
    info="w ← w − η (H + δI)⁺ ∇F(w), H = ∇²F(w) the exact Hessian over the whole training set. On a quadratic "
         "F(w) = ½wᵀDw one step with η = 1 lands on the minimum. Cost O(n²) memory, O(n³) time.",
    tags=("full_batch", "closure"),
))

# --- schedules ------------------------------------------------------------------------------------------
_S = "studio.core.optim.schedules:"
WARMUP = Param("warmup_steps", "int", 0, "steps of linear warm-up from 0 to the base rate (0: none)", 0, 10_000_000)
WARMUP_INFO = " Warm-up (any schedule): factor × min(1, (t+1)/T_w)."

SCHEDULES.add(Entry(
    "constant", "The same learning rate at every step (after an optional warm-up)", (WARMUP,),
    builder=_S + "constant",
    info="η_t = η." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "step", "Multiply the learning rate by γ every few epochs (step decay)",
    (WARMUP, Param("step_epochs", "int", 10, "epochs between decays", 1, 100_000),
     Param("gamma", "float", 0.1, "factor applied at each decay", 0.0, 1.0)),
    builder=_S + "step",
    info="η_t = η · γ^⌊t / (S·steps_per_epoch)⌋   (torch.optim.lr_scheduler.StepLR; He et al. 2016)." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "exponential", "Shrink the learning rate smoothly by a factor γ per epoch",
    (WARMUP, Param("gamma", "float", 0.95, "factor per epoch", 0.0, 1.0)),
    builder=_S + "exponential",
    info="η_t = η · γ^(t / steps_per_epoch)   (torch.optim.lr_scheduler.ExponentialLR, per step)." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "cosine", "Cosine decay from the base rate to a final fraction of it over the run",
    (WARMUP, Param("final_fraction", "float", 0.0, "learning rate at the end, as a fraction of the base", 0.0, 1.0)),
    builder=_S + "cosine",
    info="η_t = η[f + ½(1 − f)(1 + cos(π(t − T_w)/(T − T_w)))]   (Loshchilov & Hutter 2017, 'SGDR')." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "inverse_sqrt", "Decay as one over the square root of the step (the classic stochastic-approximation rate)",
    (WARMUP, Param("timescale", "int", 100, "τ: steps after which the rate has fallen by √2", 1, 10_000_000)),
    builder=_S + "inverse_sqrt",
    info="η_t = η / √(1 + t/τ)   (Robbins–Monro-style 1/√t decay; Vaswani et al. 2017 after warm-up)." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "warmup", "Linear warm-up from 0 to the base rate, then constant",
    (Param("warmup_steps", "int", 200, "steps of linear warm-up", 1, 10_000_000),),
    builder=_S + "constant",
    info="η_t = η·min(1, (t+1)/T_w)   (Goyal et al. 2017, 'Accurate, Large Minibatch SGD')",
))
SCHEDULES.add(Entry(
    "wsd", "Warmup-stable-decay: warm up, hold the rate, then anneal linearly to zero over the last fraction",
    (WARMUP, Param("cooldown_fraction", "float", 0.2, "share of the run spent annealing to zero", 0.0, 1.0)),
    builder=_S + "wsd",
    info="η_t = η for t < T(1−c);  η(T − t)/(cT) after   (Hu et al. 2024 'MiniCPM'; Hägele et al. 2024)."
         + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "poly", "Polynomial decay from the base rate to zero over the run after the warm-up (LAMB's and LARS's)",
    (WARMUP, Param("power", "float", 1.0, "p: 1 is linear decay, 2 falls faster at first", 0.1, 10.0)),
    builder=_S + "poly",
    info="η_t = η(1 − (t − T_w)/(T − T_w))^p   (You et al. 2020, 'Large Batch Optimization for Deep Learning: "
         "Training BERT in 76 minutes'; You, Gitman & Ginsburg 2017)." + WARMUP_INFO,
))
SCHEDULES.add(Entry(
    "one_cycle", "One-cycle: rise from a low rate to the base rate, then fall far below it (cosine both ways)",
    (Param("pct_start", "float", 0.3, "share of the run spent rising", 0.01, 0.99),
     Param("div_factor", "float", 25.0, "the start rate is the base rate / this", 1.0, 1e6, log=True),
     Param("final_div_factor", "float", 1e4, "the final rate is the start rate / this", 1.0, 1e9, log=True)),
    builder=_S + "one_cycle",
    info="η rises from η/d to η over the first p·T steps, then falls to η/(d·d_f), both by cosine annealing "
         "(Smith & Topin 2017, 'Super-Convergence'; matches torch.optim.lr_scheduler.OneCycleLR)",
))
