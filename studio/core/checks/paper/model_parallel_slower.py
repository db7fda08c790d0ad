"""Naive model parallelism (layers split over devices, the whole batch passed along) is no faster than one
device for a model that fits: one stage works at a time."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

CHECK = PaperCheck(
    name="model_parallel_slower",
    claim="Splitting a model that fits on one device into stages on p devices, without micro-batches, makes a step "
          "slower, not faster: only one stage works at a time (each is busy ≈ 1/p of the step) and the activations "
          "and gradients now travel between devices.",
    paper="PyTorch tutorials, Shen Li 2019, 'Single-Machine Model Parallel Best Practices' (ResNet-50 split over 2 "
          "GPUs: slower than on one); Huang et al. 2019, 'GPipe', arXiv:1811.06965 (Fig. 2b: naive model "
          "parallelism leaves all but one device idle)",
    paper_setup="ResNet-50 split in two on 2 GPUs, batch 120 (3 × 40 in their figure): the model-parallel run "
                "takes ~7 % longer per training run than the single-GPU one; GPipe Fig. 2(b): with K devices "
                "and no micro-batches, only one device computes at any time.",
    our_setup="Two CPU processes (gloo) against one; an MLP 784-512-512-512-512-10 split into two stages of equal "
              "compute (fc1-fc2 | fc3-fc5), activations forward and gradients back with blocking send/recv, global "
              "batch 256, SGD, one thread per process; 10 steps (2 warm-up), four times. Each rank records its "
              "timeline and the CPU time it got in each computation. Per timed step of model parallelism: its time on "
              "dedicated cores (first to last computation, less the time the computations were descheduled: their "
              "wall time less their CPU time) ÷ the single process's median step on the same footing; each "
              "stage's share of the computing in CPU time; and how many stages compute at once while any does (wall"
              " clock: a competing program stretches an interval but cannot make two overlap). Mean ± s.e. over the"
              " 32 timed steps, bands with a one-sided 95 % margin (Student's t). 'Slower': at least 2 % longer "
              "steps (the transfers' own time is kept, and a busy machine only lengthens it). Scaled down: CPU "
              "cores for GPUs, an MLP for ResNet-50.",
    runner="studio.engine.parallel.checks:model_parallel_slower",
    budget_s=60.0,
    exclusive=True,
)
