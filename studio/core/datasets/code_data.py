"""Datasets that are code, not arrays: a ``torch.utils.data.Dataset`` of a user's file (``[data] name =
"python"``), or one saved with Hugging Face ``datasets`` (core/datasets/hf_data.py). Workers only: imports torch.

The splits stay datasets: :class:`Column` is their inputs or labels as a lazy, indexable column (``x[idx]`` reads
those items and stacks them), so every view that reads a few samples works unchanged, while training reads them
through a DataLoader with workers (engine/loop/loader_data.py). A dataset class is built per split when its
``__init__`` takes ``split`` ("train", "val", "test") or ``train`` (True/False); a function may return
``(train, test)`` or ``(train, val, test)``; a single dataset is split by ``val_fraction`` / ``test_fraction``
(seeded, the same every run). Items must be ``(input, label)`` pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils.data import Dataset, Subset

from studio.core.datasets.arrays import ArrayData
from studio.core.errors import DataError
from studio.core.usercode.errors import UserCodeError


def as_pair(item: Any, owner: str) -> tuple[torch.Tensor, torch.Tensor]:
    """An item as (input tensor, label tensor); one sentence when it is not an (input, label) pair."""
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        kind = f"{len(item)}-tuples" if isinstance(item, (tuple, list)) else f"{type(item).__name__}s"
        raise UserCodeError(f"{owner}'s items are {kind}, not (input, label) pairs: return (x, y) from "
                            "__getitem__")
    x, y = item
    x = x if isinstance(x, torch.Tensor) else torch.as_tensor(x)
    y = y if isinstance(y, torch.Tensor) else torch.as_tensor(y)
    return x, y


class Column:
    """The inputs (``part`` 0) or labels (1) of a dataset, read on demand: ``len``, ``shape``, ``dtype``, ``dim``,
    and indexing by an int, a slice, a list, an index tensor or a boolean mask (a stacked tensor on ``device``)."""

    def __init__(self, dataset: Any, part: int, owner: str, device: torch.device | str = "cpu") -> None:
        self.dataset, self.part, self.owner, self.device = dataset, part, owner, torch.device(device)
        self._first: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.dataset)

    def item(self, index: int) -> torch.Tensor:
        return as_pair(self.dataset[int(index)], self.owner)[self.part]

    @property
    def first(self) -> torch.Tensor:
        if self._first is None:
            if not len(self):
                return torch.zeros(0)
            self._first = self.item(0)
        return self._first

    @property
    def shape(self) -> torch.Size:
        return torch.Size((len(self), *self.first.shape))

    @property
    def dtype(self) -> torch.dtype:
        return self.first.dtype

    def dim(self) -> int:
        return 1 + self.first.dim()

    def to(self, device: torch.device | str, **_: Any) -> Column:
        return Column(self.dataset, self.part, self.owner, device)

    def cpu(self) -> Column:
        return self.to("cpu")

    def numpy(self) -> Any:
        """Every item, stacked (the whole split is read: evaluation's labels)."""
        return self[:].cpu().numpy()

    def indices(self, key: Any) -> list[int]:
        n = len(self)
        if isinstance(key, slice):
            return list(range(n))[key]
        if isinstance(key, torch.Tensor):
            key = key.cpu()
            if key.dtype == torch.bool:
                return torch.nonzero(key).flatten().tolist()
            return key.flatten().tolist()
        if isinstance(key, (list, tuple, range)):
            return [int(i) for i in key]
        raise TypeError(key)

    def __getitem__(self, key: Any) -> torch.Tensor:
        if isinstance(key, tuple):  # x[rows, columns]: the rows first
            return self[key[0]][(slice(None), *key[1:])]
        if isinstance(key, int):
            return self.item(key).to(self.device)
        rows = self.indices(key)
        if not rows:
            return torch.zeros((0, *self.first.shape), dtype=self.dtype, device=self.device)
        return torch.stack([self.item(i) for i in rows]).to(self.device)


@dataclass
class CodeData(ArrayData):
    """ArrayData whose x and y are :class:`Column` s of datasets (``train``, ``val``, ``test``); ``workers``:
    the DataLoader workers that read training batches."""

    train: Any = None
    val: Any = None
    test: Any = None
    workers: int = 2
    owner: str = "the dataset"
    loader: bool = field(default=True)

    @classmethod
    def of(cls, train: Any, val: Any, test: Any, classes: list[str], owner: str, workers: int,
           meta: dict[str, Any]) -> CodeData:
        def col(ds: Any, part: int) -> Column | None:
            return Column(ds, part, owner) if ds is not None else None

        return cls(col(train, 0), col(train, 1), col(test, 0), col(test, 1), classes,  # type: ignore[arg-type]
                   col(val, 0), col(val, 1),  # type: ignore[arg-type]  # columns stand in for the tensors
                   {"normalise": False, **meta}, train, val, test, workers, owner)

    @property
    def is_image(self) -> bool:
        return self.x_train.dim() == 4

    def split_validation(self, fraction: float, seed: int) -> tuple[Any, Any, Any, Any]:
        """The dataset's own validation split, else a seeded random share of the training set."""
        if self.val is not None:
            return self.x_train, self.y_train, self.x_val, self.y_val
        train, val = random_split(self.train, fraction, seed)
        return Column(train, 0, self.owner), Column(train, 1, self.owner), Column(val, 0, self.owner), \
            Column(val, 1, self.owner)


def random_split(dataset: Any, fraction: float, seed: int) -> tuple[Subset, Subset]:
    """(rest, held out): ``fraction`` of ``dataset`` held out, chosen by ``seed``."""
    n = len(dataset)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    k = round(n * fraction)
    return Subset(dataset, sorted(perm[k:])), Subset(dataset, sorted(perm[:k]))


def class_names(train: Any, owner: str, labels: Column) -> list[str]:
    """The dataset's ``classes`` (a list), else ``num_classes`` numbered, else the labels' largest value + 1
    (every training label read once)."""
    classes = getattr(train, "classes", None)
    if isinstance(classes, (list, tuple)) and classes:
        return [str(c) for c in classes]
    count = getattr(train, "num_classes", None)
    if not isinstance(count, int):
        first = labels.first
        if first.dim() or first.is_floating_point():
            raise UserCodeError(f"{owner}'s labels are {tuple(first.shape) or first.dtype} tensors, not class "
                                "numbers: return (x, y) with y a whole number")
        count = int(max(int(labels.item(i)) for i in range(len(labels)))) + 1
    return [str(i) for i in range(count)]


def load_python(name: str = "python", seed: int = 0, path: str = "", args: dict[str, Any] | None = None,
                val_fraction: float = 0.1, test_fraction: float = 0.1, workers: int = 2, **params: Any) -> CodeData:
    """The dataset class or function ``params["class"]`` of the file ``path``, as train/val/test splits."""
    from studio.core.usercode.arguments import check_values
    from studio.core.usercode.loading import load_object, user_error
    from studio.core.usercode.reader import DATASET, read_file

    owner = str(params.pop("class", ""))
    definition = read_file(path).get(owner, DATASET)
    values = check_values(owner, definition.arguments, dict(args or {}), "data.args")
    takes = {a.name for a in definition.arguments}
    made = load_object(path, owner)
    try:
        if "split" in takes:
            train, val, test = (made(split=s, **values) for s in ("train", "val", "test"))
        elif "train" in takes:
            train, val, test = made(train=True, **values), None, made(train=False, **values)
        else:
            out = made(**values)
            train, val, test = _parts(out, owner)
    except UserCodeError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's __init__: its line, not Studio's stack
        raise UserCodeError(user_error(err) or f"building {owner} failed: {type(err).__name__}: {err}") from None
    if test is None:
        train, test = random_split(train, test_fraction, seed + 7)
    if val is not None and not len(val):
        val = None
    if not len(train):
        raise DataError(f"{owner} has no training samples")
    x0, _ = as_pair(train[0], owner)
    classes = class_names(getattr(train, "dataset", train), owner, Column(train, 1, owner))
    return CodeData.of(train, val, test, classes, owner, workers,
                       {"source": f"{owner} in {path}", "input_shape": list(x0.shape)})


def _parts(out: Any, owner: str) -> tuple[Any, Any, Any]:
    if isinstance(out, Dataset) or hasattr(out, "__getitem__") and hasattr(out, "__len__") \
            and not isinstance(out, (tuple, list)):
        return out, None, None
    if isinstance(out, (tuple, list)) and len(out) in (2, 3):
        return (out[0], None, out[1]) if len(out) == 2 else (out[0], out[1], out[2])
    raise UserCodeError(f"{owner} returned {type(out).__name__}: return a Dataset, (train, test) or "
                        "(train, val, test)")
