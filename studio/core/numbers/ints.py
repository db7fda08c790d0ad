"""Reading a list of whole numbers a person typed ("16, 64,256", "28x28", "[1, 2]"): the one parser."""

from __future__ import annotations

import re
from collections.abc import Iterable

# "x" separates only between digits ("28x28"): "64,x" is a typo to report, not [64]
_SEPARATORS = re.compile(r"(?<=\d)\s*[x×]\s*(?=\d)|[\s,;\[\]()]+")


def split_ints(value: str | int | Iterable[int | str]) -> list[int]:
    """The whole numbers in ``value``: an int, a list, or text separated by commas, semicolons, spaces or
    "x" ("28x28"). Raises ValueError on anything else (callers turn it into a sentence for a person)."""
    if isinstance(value, int):
        return [value]
    if isinstance(value, str):
        return [int(v) for v in _SEPARATORS.split(value.lower()) if v]
    return [int(v) for v in value]
