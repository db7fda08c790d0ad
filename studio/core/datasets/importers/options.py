"""What a person can choose about an import (the CLI flags and the GUI's questions)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from studio.core.errors import DataError
from studio.core.numbers.ints import split_ints


@dataclass
class ImportOptions:
    name: str | None = None  # the dataset's name in the registry (default: from the source)
    size: tuple[int, int] | None = None  # (height, width) for images (default: the most common, ≤ 224)
    channels: int | None = None  # 1 or 3 (default: 1 when every image is grey)
    label_column: str | None = None  # CSV: the label column (default: label, class, target or y)
    shape: tuple[int, ...] | None = None  # CSV/NPZ with flat pixels: C,H,W or H,W (default: square)
    x_key: str | None = None  # NPZ: the images array (default: detected)
    y_key: str | None = None  # NPZ: the labels array
    text_column: str | None = None  # a text corpus in a CSV: the column holding the text

    def key(self) -> dict[str, Any]:
        """What changes the imported data (for the cache key): everything but the name."""
        out = asdict(self)
        out.pop("name")
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in out.items() if v is not None}


def parse_ints(text: str, what: str, count: tuple[int, ...]) -> tuple[int, ...]:
    """'28,28' or '28x28' or '1,28,28' as a tuple of positive ints with one of ``count`` lengths."""
    try:
        values = tuple(split_ints(text))
    except ValueError:
        values = ()
    if len(values) not in count or any(v <= 0 for v in values):
        lengths = " or ".join(str(c) for c in count)
        raise DataError(f"{what} must be {lengths} positive whole numbers separated by commas; got {text!r}")
    return values


class ChoiceNeeded(DataError):
    """The source is ambiguous: the person picks ``option`` from ``choices`` (the GUI asks; the CLI
    names the flag)."""

    def __init__(self, message: str, option: str, choices: list[str]) -> None:
        super().__init__(message)
        self.option = option
        self.choices = list(choices)

    @property
    def fields(self) -> dict[str, object]:
        """What a background job's error message carries so the parent can ask the question."""
        return {"option": self.option, "choices": self.choices}

    def __reduce__(self):
        return (type(self), (str(self), self.option, self.choices))
