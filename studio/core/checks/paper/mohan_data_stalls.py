"""Data stalls: fetching and decoding the input takes a large share of each step; more CPU workers for decoding
cut the stall until the cores run out, and data already on the device does not stall (Mohan et al. 2021)."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

MIN_WAIT_SHARE = 0.5  # 0 workers on a decode-bound folder: at least half of each step waiting for data
MIN_EFFICIENCY = 0.6  # workers = cores: the samples/s gained per core gained (speed-up ÷ cores got / cores before)
MAX_RESIDENT_WAIT = 0.15  # the device-resident path's wait per step, as a share of the 0-worker wait

CHECK = PaperCheck(
    name="mohan_data_stalls",
    claim="When every item is decoded from an image file, the training step spends most of its time waiting for "
          "data; more DataLoader workers decode in parallel and cut the stall until the cores run out, and data "
          "preloaded on the device barely waits at all.",
    paper="Mohan, Phanishayee, Raniwala & Chidambaram 2021, 'Analyzing and Mitigating Data Stalls in DNN "
          "Training', PVLDB 14(5), arXiv:2007.06775",
    paper_setup="ImageNet-1k and other image/audio sets on servers of 8 V100 GPUs and 24-64 CPU cores, PyTorch "
                "DataLoader and DALI: with the data cached in memory, CPU-side pre-processing (decode, crop, "
                "augment) stalls ResNet-18 so that up to 65 % of the epoch is spent waiting for data (their "
                "Fig. 3 and §3.3); more CPU cores per GPU for pre-processing cut the stall until none are left "
                "(about 24 cores per GPU needed for ResNet-18 at full speed); data already decoded does not stall.",
    our_setup="400 bundled Fashion-MNIST images written as 224×224 PNG files (8× enlarged, so decoding costs "
              "something) in 10 class folders; each item decoded with Pillow and resized to 56×56 by "
              "torchvision transforms; a small MLP (one hidden layer of 128) trained with SGD at batch 64 for "
              "30 steps over 2 epochs per configuration on the CPU: 0 workers, as many persistent workers as "
              "cores (at most 4), and Studio's device-resident path (decoded once into one uint8 tensor, a batch "
              "is an index gather); each configuration measured three times, its fastest round kept. 'Until the "
              "cores run out' is measured, not assumed: on a shared machine the workers get only the cores other "
              "programs leave, so the speed-up is compared with the cores the sweep actually got (CPU seconds per "
              "second, workers included): the throughput gained per core gained — which is the samples per "
              "CPU-second of the workers' path ÷ those of the main process's, a ratio a busy machine does not "
              "move — must be at least 0.6 (measured: 0.81 quiet, 0.74–0.75 with one competing program at load "
              "9–11, where the old band of 0.7 was too close; items that cost nothing to decode: 0.51, the "
              "workers' overhead is then all they add). Every "
              "measure is a ratio of two configurations' CPU time or of one step's parts, none a wall-clock "
              "time. Scaled down: a 2-core CPU for GPUs with 24+ cores, an MLP for ResNet-18, 400 images for "
              "1.28 M.",
    runner="studio.engine.dataload.stalls_check:run",
    budget_s=90.0,
    exclusive=True,
)
