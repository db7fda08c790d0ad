"""A split that stays a dataset (a user's ``Dataset``, a Hugging Face folder: core/datasets/code_data.py): batches
come through a DataLoader with workers instead of an index gather on the device.

Each batch is one DataLoader item (:class:`Batches`): the epoch's shuffled indices are cut into batches exactly as
for a tensor dataset (engine/loop/device_data.epoch_shard, batching.batch_slices), and the worker that reads a
batch first seeds torch, numpy and random from (seed, epoch, batch). So a random transform in the user's
``__getitem__`` draws the same numbers whatever the number of workers, and a resumed run that skips the batches it
already did reads the rest bit for bit as the uninterrupted run did.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader

from studio.core.datasets.code_data import Column, as_pair
from studio.engine.loop.device_data import DeviceData
from studio.engine.loop.distributed import DistContext


def _seed(*parts: int) -> int:
    value = 0
    for part in parts:
        value = (value * 1_000_003 + int(part)) % (2**63 - 1)
    return value


class Batches(torch.utils.data.Dataset):
    """Batch ``k`` of ``batches`` (lists of indices into ``dataset``) as one item: (inputs, labels) stacked."""

    def __init__(self, dataset: Any, batches: list[list[int]], owner: str, seed: int | None, first: int = 0) -> None:
        self.dataset, self.batches, self.owner, self.seed = dataset, batches, owner, seed
        self.first = first  # the epoch's index of batches[0] (a resumed epoch starts past 0)

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.seed is not None:
            seed = _seed(self.seed, self.first + k)
            torch.manual_seed(seed)
            random.seed(seed)
            try:
                import numpy as np

                np.random.seed(seed % 2**32)
            except ImportError:  # pragma: no cover - numpy is a dependency
                pass
        pairs = [as_pair(self.dataset[i], self.owner) for i in self.batches[k]]
        return torch.stack([p[0] for p in pairs]), torch.stack([p[1] for p in pairs])


@contextlib.contextmanager
def _may_have_children() -> Iterator[None]:
    """Let a rank, which Studio starts as a daemonic process (engine/jobs/process_job.py), start its DataLoader
    workers: multiprocessing refuses children to a daemon. The workers are daemons themselves and leave with the
    rank (torch's worker watchdog ends them when their parent is gone)."""
    import multiprocessing.process as mp_process

    config = mp_process.current_process()._config  # type: ignore[attr-defined]  # noqa: SLF001 - the daemon flag
    daemon = config.get("daemon", False)
    config["daemon"] = False
    try:
        yield
    finally:
        config["daemon"] = daemon


class LoaderData(DeviceData):
    """One split of a dataset read by a DataLoader with ``workers`` processes; ``x``/``y`` are lazy columns on
    the device (a few samples for the views), batches are moved to the device as they arrive."""

    def __init__(self, x: Column, y: Column, device: torch.device, workers: int) -> None:
        super().__init__(x, y, torch.zeros(1), torch.ones(1), device)  # type: ignore[arg-type]  # columns
        self.workers = workers
        self.dataset, self.owner = x.dataset, x.owner

    def batch(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = self.x[idx], self.y[idx]
        return self.normalise(x), y

    def _loader(self, batches: list[list[int]], seed: int | None,
                first: int = 0) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        data = Batches(self.dataset, batches, self.owner, seed, first)
        workers = min(self.workers, len(batches))
        context = "fork" if workers and "fork" in torch.multiprocessing.get_all_start_methods() else None
        loader = DataLoader(data, batch_size=None, shuffle=False, num_workers=workers,
                            pin_memory=self.x.device.type == "cuda", multiprocessing_context=context)
        with _may_have_children():
            batches_in = iter(loader)  # the workers start here
        for x, y in batches_in:
            yield self.normalise(x.to(self.x.device, non_blocking=True)), y.to(self.y.device, non_blocking=True)

    def fetcher(self, order: torch.Tensor, slices: list[slice], skip: int, seed: int,
                epoch: int) -> Callable[[int], tuple[torch.Tensor, torch.Tensor]]:
        """Batches ``skip``, ``skip + 1``, … of the epoch, in order, read ahead by the workers."""
        order = order.cpu()
        stream = self._loader([order[s].tolist() for s in slices[skip:]], _seed(seed, epoch), skip)
        expected = [skip]

        def fetch(i: int) -> tuple[torch.Tensor, torch.Tensor]:
            if i != expected[0]:
                raise RuntimeError(f"batches are read in order: asked for {i}, next is {expected[0]}")
            expected[0] += 1
            return next(stream)

        return fetch

    def slices(self, batch: int, ctx: DistContext):
        """This rank's contiguous share of the split in batches, through the workers (evaluation)."""
        n = len(self)
        lo, hi = n * ctx.rank // ctx.world_size, n * (ctx.rank + 1) // ctx.world_size
        yield from self._loader([list(range(s, min(s + batch, hi))) for s in range(lo, hi, batch)], None)
