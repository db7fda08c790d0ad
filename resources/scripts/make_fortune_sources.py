"""Build the bundled labelled text corpus: which of Debian's fortune files a fortune came from.

    apt-get download fortunes && dpkg-deb -x fortunes_*.deb /tmp/fortunes
    python resources/scripts/make_fortune_sources.py /tmp/fortunes/usr/share/games/fortunes

(or point it at /usr/share/games/fortunes where the package is installed). Writes
resources/data/fortune_sources.csv (columns text,label): every fortune of the files in ``FILES`` as one line
(as make_fortunes_corpus.py cuts them), at most ``MAX_WORDS`` words; a line found in more than one file, or
twice, is dropped. Sorted by file, then in the file's order. Re-running gives the same file.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

from make_fortunes_corpus import records

FILES = ("computers", "politics", "science", "work")
MAX_WORDS = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="the folder holding the fortune files")
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "data" / "fortune_sources.csv")
    args = parser.parse_args()
    rows = [(line, name) for name in FILES
            for line in records((args.source / name).read_text(encoding="utf-8", errors="replace"))
            if len(line.split()) <= MAX_WORDS]
    seen = Counter(line.lower() for line, _ in rows)
    kept = [(line, name) for line, name in rows if seen[line.lower()] == 1]
    with args.out.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["text", "label"])
        writer.writerows(kept)
    counts = Counter(name for _, name in kept)
    print(f"wrote {len(kept)} lines to {args.out}: " + ", ".join(f"{n} {c}" for c, n in counts.items()))


if __name__ == "__main__":
    main()
