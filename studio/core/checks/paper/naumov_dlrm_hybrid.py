"""DLRM's hybrid parallelism (tables split with all-to-all, MLPs data-parallel) trains the model one device trains,
with each rank holding only its share of the tables."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

CHECK = PaperCheck(
    name="naumov_dlrm_hybrid",
    claim="Splitting a recommendation model's embedding tables between devices (model parallel: the looked-up "
          "vectors exchanged by an all-to-all, forward and backward) while replicating its MLPs (data parallel: "
          "their gradients all-reduced) trains exactly the model one device trains, with each device holding only "
          "its share of the tables; the all-to-all moves batch × tables × dim numbers per step each way.",
    paper="Naumov, Mudigere, Shi, Huang, Sundaraman, Park, Wang, Gupta, Wu, Azzolini, Dzhulgakov, Mallevich, "
          "Cherniavskii, Lu, Krishnamoorthi, Yu, Kondratenko, Pereira, Chen, Chen, Rao, Jia, Xiong & Smelyanskiy "
          "2019, 'Deep Learning Recommendation Model for Personalization and Recommendation Systems', "
          "arXiv:1906.00091",
    paper_setup="§4 (parallelism): the embeddings hold most of the parameters, 'several tables each requiring in "
                "excess of multiple GBs of memory', so they are model-parallel (each device owns whole tables) while "
                "the MLPs, small in size but most of the compute, are data-parallel; the interaction needs every "
                "sample's vectors on one device, which a personalised all-to-all (a 'butterfly shuffle', Fig. 3) "
                "provides, with its reverse for the gradients. §6: benchmarked on Big Basin (8 V100 GPUs) with a "
                "model of 8 tables of 1M vectors of dimension 64.",
    our_setup="A small DLRM (bottom MLP 13-64-32-16, 8 tables of 100,000 × 16, dot-product interaction, top MLP "
              "52-64-32-1, BCE, Adagrad lr 0.05 with sparse table gradients) on synthetic clicks with a known "
              "structure (Zipf-distributed rows; the log-odds a sum of pairwise dot products of hidden vectors, so "
              "the model can learn them); global batch 256; 2 CPU processes (gloo; all_to_all_single in a custom "
              "autograd function, all_reduce of the MLPs' gradients) against one process on the same batches and "
              "initial weights; 20 steps, 3 seeds. Bytes are counted (exact; load does not change them); the "
              "memory growth while each process builds its part is read from /proc. No time is checked: 2 "
              "processes on a shared 2-core machine measure its scheduling. Scaled down: 51 MB of tables for "
              "GBs, 2 processes for 8 GPUs.",
    runner="studio.engine.dlrm.check:run",
    budget_s=60.0,
    exclusive=True,
)
