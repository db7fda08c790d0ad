"""The examples the README and the user guide give: every ```bash block's ``studio train`` and ``studio generate``
lines, so a new example is tested as soon as it is written (tests/integration/test_doc_examples.py).

A line continued with ``\\`` is one command. A ``studio train`` line with an optional part (``[--config FILE]``)
is a syntax summary, not an example, and is left out; a ``studio generate`` line's optional parts are dropped and
its ``RUN`` is the run the block's previous ``studio train`` made.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLACES = ("README.md", "docs/user-guide")
FENCE = re.compile(r"^```bash\s*$(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
OPTIONAL = re.compile(r"\s*\[[^\]]*\]")


@dataclass
class Example:
    """The commands of one block, in order, each an argument list after ``studio``."""

    where: str  # "docs/user-guide/text.md:39"
    commands: list[list[str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.where


def files(root: Path = ROOT) -> list[Path]:
    out = []
    for place in PLACES:
        path = root / place
        out += sorted(path.glob("*.md")) if path.is_dir() else [path]
    return out


def commands_of(block: str) -> list[str]:
    """The block's commands, continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split(" #")[0].strip() for line in joined.splitlines() if line.strip().startswith("studio ")]


def examples(root: Path = ROOT) -> list[Example]:
    found = []
    for path in files(root):
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line_no = text.count("\n", 0, match.start()) + 1
            example = Example(f"{path.relative_to(root)}:{line_no}")
            for command in commands_of(match["body"]):
                args = shlex.split(command)[1:]
                if args[:1] == ["train"] and "[" not in command and "RUN" not in args:
                    example.commands.append(args)
                elif args[:1] == ["generate"] and any(c[0] == "train" for c in example.commands):
                    example.commands.append(shlex.split(OPTIONAL.sub("", command))[1:])
            if example.commands:
                found.append(example)
    return found
