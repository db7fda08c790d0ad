"""ArrayData: a dataset held as whole tensors (images as uint8), the form the trainer consumes."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class ArrayData:
    """Train and test tensors. Images are uint8 (N, C, H, W); points are float32 (N, D)."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    classes: list[str]
    x_val: torch.Tensor | None = None  # a source's own validation split, if it has one
    y_val: torch.Tensor | None = None
    meta: dict = field(default_factory=dict)

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(self.x_train.shape[1:])

    @property
    def num_classes(self) -> int:
        return len(self.classes)

    @property
    def is_image(self) -> bool:
        return self.x_train.dtype == torch.uint8 and self.x_train.dim() == 4

    def _class_indices(self) -> dict[int, torch.Tensor]:
        """Integer labels' sample indices by class, in one sort (a scan per class was quadratic in the classes);
        {} for other targets (a regression's), which are scanned as before."""
        from studio.core.datasets.splits import by_class

        y = self.y_train
        if y.dtype.is_floating_point or y.dtype == torch.bool or y.ndim != 1:
            return {}
        labels = y.cpu().numpy()
        return {int(labels[g[0]]): torch.from_numpy(g) for g in by_class(labels)}

    def split_validation(self, fraction: float,
                         seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(x_train, y_train, x_val, y_val): the source's own split, else a stratified, seeded one."""
        if self.x_val is not None and self.y_val is not None:
            return self.x_train, self.y_train, self.x_val, self.y_val
        if fraction <= 0:
            empty = self.x_train[:0]
            return self.x_train, self.y_train, empty, self.y_train[:0]
        gen = torch.Generator().manual_seed(seed)
        val_idx = []
        groups = self._class_indices()
        for c in range(self.num_classes):  # every class draws, an empty one too: the same draws as ever
            idx = groups[c] if c in groups else torch.nonzero(self.y_train == c).flatten()
            idx = idx[torch.randperm(len(idx), generator=gen)]
            val_idx.append(idx[: round(len(idx) * fraction)])
        val = torch.cat(val_idx)
        mask = torch.ones(len(self.y_train), dtype=torch.bool)
        mask[val] = False
        return self.x_train[mask], self.y_train[mask], self.x_train[val], self.y_train[val]
