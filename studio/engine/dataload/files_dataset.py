"""A ``torch.utils.data.Dataset`` that decodes one image file per item (Pillow, then torchvision transforms:
resize, to a tensor, normalise): the decode-bound pipeline whose workers the sweep counts."""

from __future__ import annotations

import time
from collections.abc import Sequence

import torch
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class ImageFiles(Dataset):
    """Item i: the file ``paths[i]`` decoded, converted to grey or RGB, resized to ``size`` (height, width) and
    normalised by ``mean``/``std`` (per channel, of pixels in 0..1), with its label. ``slow_item_s`` adds a sleep
    per item (tests: a sweep long enough to cancel)."""

    def __init__(self, paths: Sequence[str], labels: Sequence[int], channels: int, size: tuple[int, int],
                 mean: Sequence[float], std: Sequence[float], slow_item_s: float = 0.0) -> None:
        self.paths = list(paths)
        self.labels = torch.as_tensor(list(labels), dtype=torch.int64)
        self.mode = "L" if channels == 1 else "RGB"
        self.slow_item_s = slow_item_s
        self.transform = transforms.Compose([transforms.Resize(size), transforms.ToTensor(),
                                             transforms.Normalize(list(mean), list(std))])

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.slow_item_s:
            time.sleep(self.slow_item_s)
        with Image.open(self.paths[i]) as img:
            x = self.transform(img.convert(self.mode))
        return x, self.labels[i]
