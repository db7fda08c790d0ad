"""A pipeline's idle share (its bubble) is (p−1)/(m+p−1): with enough micro-batches it becomes small (GPipe),
and 1F1B keeps the same bubble with the activations of at most p micro-batches in flight."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

CHECK = PaperCheck(
    name="huang_gpipe_bubble",
    claim="Splitting the batch into M micro-batches fills the pipeline: the idle share of the stages (the bubble) "
          "falls as (p−1)/(M+p−1), to ≈ 11 % at M = 8 on 2 stages; the 1F1B schedule has the same bubble but keeps "
          "only p micro-batches' activations instead of M.",
    paper="Huang, Cheng, Bapna, Firat, Chen, Chen, Lee, Ngiam, Le, Wu & Chen 2019, 'GPipe: Efficient Training of "
          "Giant Neural Networks using Pipeline Parallelism', arXiv:1811.06965; Narayanan, Shoeybi, Casper, "
          "LeGresley, Patwary, Korthikanti, Vainbrand, Kashinkunti, Bernauer, Catanzaro, Phanishayee & Zaharia "
          "2021, 'Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM', arXiv:2104.04473",
    paper_setup="GPipe: K accelerators, M micro-batches, the bubble's overhead O((K−1)/(M+K−1)), 'negligible when "
                "M ≥ 4×K' (section 2.2; AmoebaNet and Transformer on TPUs). Megatron-LM (section 2.2.1): bubble "
                "fraction (p−1)/m for GPipe and for PipeDream-Flush (1F1B), which limits the micro-batches whose "
                "activations are kept to p (GPipe: m).",
    our_setup="Two CPU processes (gloo, one thread each), torch.distributed.pipelining's PipelineStage with "
              "ScheduleGPipe and Schedule1F1B; an MLP 784-64-2048-1024-2048-10 split into two stages whose forwards"
              " and backwards are both about equal (fc1-fc3 | fc4-fc5), global batch 4096, SGD, M = 1, 2, 8 (1F1B: "
              "2, 8), 7 steps each (2 warm-up, 5 timed). Each rank's real timeline is recorded (forward and "
              "backward timed by wrapping the stage), with the CPU time the rank got in each computation. The bubble is"
              " that of dedicated cores: per timed step, the schedule is replayed with every computation lasting "
              "its CPU time, in the order the rank ran them, a stage's forward of a micro-batch after the previous "
              "stage's forward of it and its backward after the next stage's backward (transfers counted as "
              "instant), and the idle share of the stages is read off the replay; mean ± s.e. over the 5 timed "
              "steps, the band with a one-sided 95 % margin (Student's t). Why: on a shared machine another program"
              " takes a rank's core for a while, the rank's computations stretch and its peer waits, so the wall "
              "clock measures the machine (one competing program moved the bubble at M = 8 by about 0.1; the wall-"
              "clock bubble stays in the details). Activations: the bytes autograd saved for backward on the first "
              "stage at the step's peak. Scaled down: 2 stages on CPU cores, M ≤ 8.",
    runner="studio.engine.parallel.checks:gpipe_bubble",
    budget_s=90.0,
    exclusive=True,
)
