"""With a straggler, asynchronous SGD on a parameter server makes more updates per second and reaches a lower loss
in the same wall time than synchronous SGD, but each of its (stale) updates is worth less."""

from __future__ import annotations

from studio.core.checks.base import PaperCheck

CHECK = PaperCheck(
    name="chen_async_straggler",
    claim="With a straggler, asynchronous SGD on a parameter server makes many more updates per second than "
          "synchronous SGD (which waits for the slowest worker every round) and reaches a lower loss in the same "
          "wall time, but its gradients are stale, so per update it is worse than synchronous SGD.",
    paper="Chen, Pan, Monga, Bengio & Jozefowicz 2016, 'Revisiting Distributed Synchronous SGD', arXiv:1604.00981; "
          "Dean et al. 2012, 'Large Scale Distributed Deep Networks' (Downpour SGD), NeurIPS; Zhang, Gupta, Lian & "
          "Liu 2016, 'Staleness-aware Async-SGD for Distributed Deep Learning', IJCAI, arXiv:1511.05950",
    paper_setup="Chen et al.: Inception on ImageNet with 50–200 workers and parameter servers; synchronous steps are "
                "as slow as the slowest worker (stragglers: their Fig. 2-3), asynchronous training has stale "
                "gradients and converges to lower accuracy (their Table/Fig. 5-7, e.g. 77.3 % vs 78.0 % top-1 with "
                "backup workers). Dean et al.: Downpour (async) SGD trains far faster in wall time than a single "
                "model replica. Zhang et al.: dividing the rate by the staleness (α/τ) brings async's accuracy to "
                "sync's.",
    our_setup="Fashion-MNIST (the bundled 10,000 training images), an MLP 784-128-10, plain SGD lr 0.1 on a "
              "parameter server over torch.distributed.rpc on this CPU, 3 worker processes with batch 32, the third"
              " sleeping 0.2 s per gradient (the straggler); synchronous rounds (the mean of 3 gradients per "
              "update) then asynchronous pushes, 4 s of wall time each, from the same initial weights. Loss on "
              "2,000 training images from weight snapshots. On a busy machine the load moves between the two phases"
              " and every worker is now and then a straggler itself (without any straggler async was 6–9× faster "
              "than sync at load 15), so the straggler is slow enough to stand out of that noise, and a fourth "
              "measure holds within one phase, under one load: in the async phase the straggler delivers a fraction"
              " of a fast worker's gradients (async does not wait for it). Scaled down: 3 workers for 50–200, a "
              "sleep for a slow machine. Not checked here: the staleness-aware rate (with 3 workers the staleness "
              "is ~1.5, α/τ changes little and its effect is within run-to-run noise; the page shows it).",
    runner="studio.engine.async_sgd.check:run",
    budget_s=60.0,
    preset={"workers": 3, "delays": "0,0,0.2", "seconds": 4, "lr": 0.1, "batch_size": 32,
            "modes": "sync,async", "staleness_aware": False, "seed": 0},
    exclusive=True,
)
