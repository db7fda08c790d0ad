"""Training: the launcher (N rank processes), the worker (one rank), the trainer (the loop), torch.distributed
helpers, torchrun, checkpoints and resume, the queue's scheduler, data on the device and augmentation."""
