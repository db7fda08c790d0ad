"""How a paper check reads in the GUI (the demo panel's result and the Paper checks view's detail): the claim,
the paper's set-up and number, ours and what was scaled down, then each measure "ours vs paper [band]" (with
statistics: "mean ± s.e. (n seeds, margin m)") and a coloured PASS/FAIL; a method check says it is one. Plain
HTML for a QLabel; no torch."""

from __future__ import annotations

import html
from typing import Any

from studio.core.checks.base import PaperCheck
from studio.core.checks.stats import short
from studio.gui.session import theme

PASS_COLOUR = "#2e9e44"  # readable on the light and the dark theme's window (a FAIL: the theme's error colour)
METHOD_NOTE = ("A method check: it runs Studio's own code on data whose answer is known, so it tests the code, "
               "not the paper's claim.")


def verdict_html(verdict: str) -> str:
    colour = PASS_COLOUR if verdict == "PASS" else theme.error_colour()
    return f"<b style='color: {colour}'>{html.escape(verdict)}</b>"


def ours_text(value: Any) -> str:
    """A measure's number as the CLI prints it (4 significant digits; n/a when there is none)."""
    return "n/a" if value is None else f"{value:.4g}" if isinstance(value, float | int) else str(value)


def measure_ours_html(measure: dict[str, Any]) -> str:
    """The measure's number in bold; with statistics ``mean ± s.e. (n seeds, margin m)`` so the reader sees how
    many repeats it rests on and how much the band takes off."""
    e = html.escape
    text = f"<b>{e(ours_text(measure['ours']))}</b>"
    if measure.get("n") is None or measure.get("ours") is None:
        return text
    se = measure.get("se")
    text += f" ± {e(short(se))}" if se is not None else " ± n/a"
    stats = f"{measure['n']} {measure.get('over') or 'seeds'}"
    if measure.get("margin") is not None:
        stats += f", margin {short(measure['margin'])}"
    elif measure.get("se") is None and measure["n"] < 2:
        stats += ", no margin: one repeat"
    return f"{text} ({e(stats)})"


def setups_html(check: PaperCheck) -> str:
    e = html.escape
    return (f"<p><b>The paper:</b> {e(check.paper_setup)}<br><i>{e(check.paper)}</i></p>"
            f"<p><b>Ours:</b> {e(check.our_setup)}</p>")


def outcome_html(check: PaperCheck, outcome: dict[str, Any] | None, with_claim: bool = False) -> str:
    """After a run, the verdict with its time and one line per measure; then the paper's set-up and ours."""
    e = html.escape
    parts = [f"<p><b>Claim:</b> {e(check.claim)}</p>"] if with_claim else []
    if check.is_method_check:
        parts.append(f"<p><i>{e(METHOD_NOTE)}</i></p>")
    if outcome is not None:
        parts.append(f"<p>{verdict_html(outcome['verdict'])} in {outcome['seconds']:.1f} s</p>")
        if outcome.get("error"):
            parts.append(f"<p>The check could not run: {e(outcome['error'])}</p>")
        rows = [f"{verdict_html('PASS' if m['passed'] else 'FAIL')} {e(m['label'])}: ours "
                f"{measure_ours_html(m)} vs paper {e(m['paper'])} [{e(m['band'])}]"
                for m in outcome["measures"]]
        if rows:
            parts.append("<p>" + "<br>".join(rows) + "</p>")
    parts.append(setups_html(check))
    return "".join(parts)


def ours_summary(outcome: dict[str, Any]) -> str:
    """One cell: each measure's number, ``·`` between them."""
    if outcome.get("error"):
        return "could not run"
    return " · ".join(ours_text(m["ours"]) for m in outcome["measures"])
