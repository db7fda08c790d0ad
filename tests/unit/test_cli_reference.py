"""docs/reference/cli.md is generated from the parser (studio/cli/reference.py): it names every command and
sub-command with its arguments, it is current (a new or changed option without a regenerated page fails here),
and generating it imports no torch."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from studio.cli import COMMANDS, build_parser
from studio.cli.reference import REGENERATE, markdown, usage

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"


def test_the_committed_page_is_the_parsers() -> None:
    assert PAGE.read_text(encoding="utf-8") == markdown(), f"docs/reference/cli.md is stale: run `{REGENERATE}`"


def test_every_command_sub_command_and_option_is_on_the_page() -> None:
    page = markdown()
    for name in COMMANDS:
        assert f"\n### studio {name}\n" in page, name
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, child in sub.choices.items():
        for action in child._actions:
            if isinstance(action, argparse._SubParsersAction):
                for grandchild in action.choices:
                    assert f"\n#### studio {name} {grandchild}\n" in page, (name, grandchild)
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page, (name, option)
    assert "--resume RUN" in page and "--install-desktop" in page


def test_usage_writes_groups_choices_and_nargs_as_argparse_does() -> None:
    p = argparse.ArgumentParser(prog="studio demo")
    p.add_argument("name", choices=("a", "b"))
    p.add_argument("--json", action="store_true", help="one JSON line")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--tag", nargs="+", metavar=("RUN", "TAG"))
    group.add_argument("--steps", type=int)
    p.add_argument("--must", required=True, metavar="X")
    p.add_argument("--hidden", help=argparse.SUPPRESS)
    assert usage(p) == "studio demo [--json] [--tag RUN [TAG ...] | --steps STEPS] --must X {a,b}"
    page = markdown(p)
    assert "| `--json` | one JSON line |" in page and "--hidden" not in page


def test_generating_the_page_imports_no_torch() -> None:
    code = ("import sys\nfrom studio.cli.reference import markdown\nmarkdown()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
