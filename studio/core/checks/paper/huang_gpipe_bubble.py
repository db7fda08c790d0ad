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
              "2, 8), M = 8 twice, 6 steps each (2 warm-up). The bubble is measured on every rank's real timeline "
              "(forward and backward timed by wrapping the stage, P2P by wrapping the schedule's ops): per step, "
              "the stages' share of the step (its first to its last computation) not spent computing (waiting in a "
              "receive counts as idle); the median over the 4 timed steps; at M = 8 the smaller of the two runs' "
              "(as timeit keeps the fastest repeat: a stall only adds idle time). Activations: the bytes autograd "
              "saved for backward on the first stage at the step's peak. The ranks must get their cores: on a "
              "machine busy with other programs the stages wait for slowed peers and the bubble measures the "
              "machine (the details give each rank's share of a core while computing, cpu_share). Scaled down: 2 "
              "stages on CPU cores, M ≤ 8.",
    runner="studio.engine.parallel.checks:gpipe_bubble",
    budget_s=60.0,
)
