"""One model four ways (``studio parallel``): the same MLP trained single-process, data-parallel (DDP),
model-parallel (contiguous stages, send/recv) and pipeline-parallel (``torch.distributed.pipelining``: GPipe and
1F1B) in one set of rank processes, with a measured per-rank timeline.

- ``split``: the chain check, the balanced contiguous split, the bubble theory (pure Python but the chain check);
- ``network``: the MLP as a flat ``nn.Sequential`` and its layers (blocks) with their compute cost;
- ``timeline``: the per-rank interval recorder (one clock) and the activation meter (saved-tensor bytes);
- ``modes``: one training step per mode; ``rank``: a rank process (``python -m``); ``ranks``: starting and
  watching them (no process left behind on any failure); ``launch``: the request's checks, the plan, the result;
- ``checks``: the runners of the paper checks ``huang_gpipe_bubble`` and ``model_parallel_slower``.
"""
