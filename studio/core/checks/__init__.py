"""Paper checks: small, fixed, seeded reproductions of what a paper claims, compared with the paper's
direction and band (torch-free at import; each check imports torch when it runs).

- ``base``: ``PaperCheck`` (what is checked, the paper's number and set-up beside ours), ``Measure`` (one
  compared number and its pass band) and ``Reproduction`` (what a check's ``run`` returns).
- ``catalog``: ``CHECKS`` (every check of the ``paper`` package, found by name) and ``run_check``.
- ``paper/``: one module per check; each defines ``CHECK = PaperCheck(...)`` at the top (no torch) and
  ``run(progress=None, **overrides) -> Reproduction``. ``overrides`` change the set-up (tests feed a broken
  one — no warm-up, swapped batches — and must see FAIL).
"""

from studio.core.checks.base import CheckOutcome, Measure, PaperCheck, Reproduction

__all__ = ["CheckOutcome", "Measure", "PaperCheck", "Reproduction"]
