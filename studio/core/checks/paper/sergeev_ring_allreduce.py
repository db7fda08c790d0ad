"""A ring all-reduce sends 2(p−1)/p·N bytes per rank — flat in p — while a central server's traffic grows as
(p−1)·N; the ring's result is the exact sum."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

CHECK = PaperCheck(
    name="sergeev_ring_allreduce",
    claim="In a ring all-reduce each of p ranks sends and receives 2(p−1)/p·N bytes — never more than 2N, however "
          "many ranks — while a central parameter server must receive and send (p−1)·N, which grows linearly "
          "with the ranks; the ring still ends with the exact sum on every rank.",
    paper="Sergeev & Del Balso 2018, 'Horovod: fast and easy distributed deep learning in TensorFlow', "
          "arXiv:1802.05799; Patarasuk & Yuan 2009, 'Bandwidth optimal all-reduce algorithms for clusters of "
          "workstations', J. Parallel Distrib. Comput. 69(2)",
    paper_setup="Horovod (§3): the ring all-reduce of Baidu and Patarasuk & Yuan, each of N nodes communicating with "
                "two peers 2×(N−1) times, sending and receiving K/N of a K-byte buffer each time (reduce-scatter "
                "then all-gather): bandwidth-optimal, independent of the node count, against a parameter server "
                "whose link carries every worker's gradients. Their Fig. 1 and 6: 88 % scaling efficiency on 128 GPUs "
                "(Inception V3, ResNet-101, 25 GbE TCP) where standard distributed TensorFlow with parameter "
                "servers reached about half.",
    our_setup="p = 2…8 CPU processes on this machine (gloo over loopback TCP, one thread each), float32 vectors of "
              "1 MiB and 16 MiB of whole numbers from −1000 to 1000 (every partial sum exact, so a correct sum has "
              "zero error); the ring written with batched isend/irecv in its two phases; the central server is rank "
              "0 (every rank sends it N bytes, it adds and sends the sum back). Bytes are counted by the "
              "implementation where it sends and receives (exact; load does not change them). No time is checked: 8 "
              "processes share 2 cores, so wall time measures the machine's scheduling, and CPU time per rank is not "
              "robust on loopback TCP (the kernel charges the receiving side's work to whichever process is on the "
              "CPU: beside one CPU-bound program the server's rank 0 spent 46 ms of CPU instead of 73 ms at p = 8, "
              "16 MiB); the page shows both times. "
              "Scaled down: 8 processes on one machine for 128 GPUs; loopback for the network.",
    runner="studio.engine.allreduce.check:run",
    budget_s=60.0,
    exclusive=True,
)
