"""The key above the curves, without Qt: what it says (which run has which colour, how often the train curves
were logged, what solid and dashed mean) and that as the key label's rich text."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

KEY_NAMES = 12  # runs named in the key; the rest are counted, and named in its tooltip
KEY_TIP = "The colour of each shown run (the run list shows the same swatch)"
SPACE = "&nbsp;&nbsp;&nbsp;"


@dataclass(frozen=True)
class Key:
    """The runs the key names (id, label) in colour order, how many more are shown, every shown run (its
    tooltip), the train curves' logging intervals in steps: of the runs Studio trained (``every``: its
    train.metric_interval) and of the runs a script logged (``script_every``: studio.track, a TensorBoard
    import), and what a seed group's band shows (``band``)."""

    named: list[tuple[str, str]]
    more: int
    everyone: list[tuple[str, str]]
    every: list[int]
    script_every: list[int] = field(default_factory=list)
    band: str = ""  # what a seed group's shaded band is (empty: no group drawn as a band)

    @property
    def lines(self) -> str:
        """What solid and dashed mean."""
        spacing = [f"{_every(self.every)} (train.metric_interval)" if self.every else "",
                   f"{_every(self.script_every)} (as your script logged them)" if self.script_every else ""]
        shown = [s for s in spacing if s]
        train = f"solid: train, a point {'; '.join(shown)}" if shown else "solid: train"
        when = "" if self.script_every and not self.every else " (per epoch)"  # a script logs it when it likes
        band = f" · a seed group: its mean, shaded {self.band}" if self.band else ""
        return f"{train} · dashed, dots: validation{when}{band}"


def _every(steps: list[int]) -> str:
    """"every 20 steps", "every 1 step", "every 10 or 20 steps"."""
    text = " or ".join(str(n) for n in steps)
    return f"every {text} step{'s' if text != '1' else ''}"


def key_html(key: Key, colours: dict[str, str], size: int) -> tuple[str, str]:
    """The key's rich text (a swatch of ``size + 4`` pt and the name per named run, then the line styles; empty
    without runs) and its tooltip (every run's name once some are only counted)."""
    runs = [f"<span style='color:{colours[r]}; font-size:{size + 4}pt'>■</span>&nbsp;{html.escape(label)}"
            for r, label in key.named]
    if key.more:  # 60 names took most of the plots' height at 1024×768: the rest on hover
        runs.append(f"<i>… and {key.more} more (hover here for every name)</i>")
    tip = ("<br>".join(f"<span style='color:{colours[r]}'>■</span> {html.escape(label)}" for r, label in key.everyone)
           if key.more else KEY_TIP)
    return SPACE.join(runs) + (f"{SPACE}<i>{key.lines}</i>" if runs else ""), tip
