"""Derive the bundled short-line text corpus from Debian's fortunes-min package.

    apt-get download fortunes-min && dpkg-deb -x fortunes-min_*.deb /tmp/fortunes
    python resources/scripts/make_fortunes_corpus.py /tmp/fortunes/usr/share/games/fortunes

(or point it at /usr/share/games/fortunes where fortunes-min is installed). Writes
resources/data/fortunes_lines.txt: one fortune per line (its lines joined, "-- author" lines
dropped), at most 25 words, duplicates removed, in the source's order. Re-running gives the same file.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

FILES = ("fortunes", "literature", "riddles")
MAX_WORDS = 25


def records(text: str) -> list[str]:
    """The fortunes of one strfile source, each as one line of text."""
    out = []
    text = re.sub(r"[\x00-\x08\x0b-\x1f]", "", re.sub(r".\x08", "", text))  # overstriking, control codes
    for record in text.split("\n%\n"):
        lines = [s.strip() for s in record.strip().splitlines()]
        line = " ".join(s for s in lines if s and not s.startswith("--") and s != "%")
        if line:
            out.append(" ".join(line.split()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="the folder holding fortunes, literature and riddles")
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "data" / "fortunes_lines.txt")
    args = parser.parse_args()
    seen: set[str] = set()
    kept = []
    for name in FILES:
        for line in records((args.source / name).read_text(encoding="utf-8", errors="replace")):
            if len(line.split()) <= MAX_WORDS and line.lower() not in seen:
                seen.add(line.lower())
                kept.append(line)
    args.out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"wrote {len(kept)} lines to {args.out}")


if __name__ == "__main__":
    main()
