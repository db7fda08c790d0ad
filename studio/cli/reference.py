"""The CLI reference page, generated from the parser itself: ``python -m studio.cli.reference > docs/reference/cli.md``.

Walks :func:`studio.cli.build_parser` and its sub-parsers and writes, per command, its one-line help, its
description, its usage and a table of its arguments with their help texts. The usage line is written here, not by
argparse's formatter, so the page does not depend on the terminal's width or on the Python version's wording
(``tests/unit/test_cli_reference.py`` fails when the committed page is stale). Torch-free, like the parser.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

REGENERATE = "python -m studio.cli.reference > docs/reference/cli.md"

# Flags the ``studio`` entry point (studio/app.py, studio/gui/app/start.py) reads before the parser sees them.
ENTRY_FLAGS: tuple[tuple[str, str], ...] = (
    ("--install-desktop", "add Studio to the application menu (a desktop entry and icons under $XDG_DATA_HOME, "
                          "default ~/.local/share) and exit"),
    ("--uninstall-desktop", "remove that desktop entry and its icons and exit"),
    ("--new-instance", "with `studio PATH`: open a window of its own instead of handing PATH to the Studio window "
                       "already open"),
)


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each sub-command, in the order they were added."""
    sub = _subparsers(parser)
    if sub is None:
        return
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    for name, child in sub.choices.items():
        yield name, helps.get(name, ""), child


def _metavar(action: argparse.Action) -> str:
    """How an argument's value is written: ``FILE``, ``RUN [TAG ...]``, ``{1d,2d}``."""
    if action.metavar is not None:
        names = action.metavar if isinstance(action.metavar, tuple) else (action.metavar,)
    elif action.choices is not None:
        names = ("{" + ",".join(str(c) for c in action.choices) + "}",)
    elif action.option_strings:
        names = (action.dest.upper(),)
    else:
        names = (action.dest,)
    first, last = names[0], names[-1]
    nargs = action.nargs
    if nargs is None:
        return first
    if nargs == "?":
        return f"[{first}]"
    if nargs == "*":
        return f"[{first} ...]"
    if nargs == "+":
        return f"{first} [{last} ...]"
    if isinstance(nargs, int):
        return " ".join(names if len(names) == nargs else (first,) * nargs)
    return first


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _spelling(action: argparse.Action) -> str:
    """The argument as the table names it: ``--config CONFIG``, ``-V, --version``, ``RUN``."""
    if not action.option_strings:
        return _metavar(action)
    value = f" {_metavar(action)}" if _takes_value(action) else ""
    return ", ".join(f"{option}{value}" for option in action.option_strings)


def _usage_part(action: argparse.Action) -> str:
    if not action.option_strings:
        return _metavar(action)
    option = action.option_strings[-1]  # the long form
    return f"{option} {_metavar(action)}" if _takes_value(action) else option


def _shown(action: argparse.Action) -> bool:
    return action.help != argparse.SUPPRESS and not isinstance(action, argparse._SubParsersAction)


def usage(parser: argparse.ArgumentParser) -> str:
    """One usage line: options in brackets (a mutually exclusive group as ``[--a | --b]``), then positionals."""
    grouped: dict[int, argparse._MutuallyExclusiveGroup] = {}
    for group in parser._mutually_exclusive_groups:
        for action in group._group_actions:
            grouped[id(action)] = group
    parts: list[str] = []
    done: set[int] = set()
    for action in parser._actions:
        if not action.option_strings or not _shown(action) or isinstance(action, argparse._HelpAction):
            continue
        exclusive = grouped.get(id(action))
        if exclusive is not None:
            if id(exclusive) in done:
                continue
            done.add(id(exclusive))
            inner = " | ".join(_usage_part(a) for a in exclusive._group_actions if _shown(a))
            parts.append(f"({inner})" if exclusive.required else f"[{inner}]")
        else:
            parts.append(_usage_part(action) if action.required else f"[{_usage_part(action)}]")
    for action in parser._actions:
        if not action.option_strings and _shown(action):
            parts.append(_usage_part(action))
    if _subparsers(parser) is not None:
        parts.append("COMMAND ...")
    return " ".join([parser.prog, *parts])


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell (MkDocs and Qt's renderer alike)."""
    text = " ".join(text.split())
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "\\|"), ("*", "\\*")):
        text = text.replace(raw, escaped)
    return text


def _help_of(action: argparse.Action) -> str:
    text = action.help or ""
    if "%" in text:
        params = {**vars(action), "prog": "", "default": action.default,
                  "choices": ", ".join(str(c) for c in action.choices or ())}
        text = text % params
    text = _cell(text)
    default = action.default
    if (action.option_strings and _takes_value(action) and default not in (None, "", [], argparse.SUPPRESS)
            and "default" not in text.lower()):
        text = f"{text} Default `{default}`." if text.endswith(".") else f"{text}; default `{default}`".lstrip("; ")
    return text


def _arguments_table(parser: argparse.ArgumentParser) -> list[str]:
    rows = [a for a in parser._actions if _shown(a) and not isinstance(a, argparse._HelpAction)]
    if not rows:
        return []
    lines = ["| argument | what it does |", "|---|---|"]
    lines += [f"| `{_spelling(a)}` | {_help_of(a) or ' '} |" for a in rows]
    return [*lines, ""]


def _anchor(title: str) -> str:
    """The heading's id as MkDocs writes it (``studio export-config`` → ``studio-export-config``)."""
    return "-".join(title.lower().split())


def _command_section(name: str, help_text: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    title = parser.prog
    lines = [f"{'#' * level} {title}", ""]
    if help_text:
        lines += [_first_upper(help_text.strip()) + ("" if help_text.rstrip().endswith(".") else "."), ""]
    if parser.description:
        lines += [" ".join(parser.description.split()), ""]
    lines += ["```text", usage(parser), "```", ""]
    lines += _arguments_table(parser)
    children = list(_commands(parser))
    if children:
        lines += ["| command | what it does |", "|---|---|"]
        lines += [f"| [`{child.prog}`](#{_anchor(child.prog)}) | {_cell(child_help)} |"
                  for _, child_help, child in children]
        lines.append("")
        for child_name, child_help, child in children:
            lines += _command_section(child_name, child_help, child, level + 1)
    return lines


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """The reference page for ``parser`` (default: the ``studio`` parser) as Markdown."""
    if parser is None:
        from studio.cli import build_parser

        parser = build_parser()
    lines = [f"<!-- Generated from the parser by `{REGENERATE}`. Do not edit by hand. -->", "",
             "# CLI reference", ""]
    if parser.description:
        lines += ["```text", parser.description.rstrip(), "```", ""]
    if parser.epilog:
        lines += [" ".join(parser.epilog.split()), ""]
    lines += ["```text", usage(parser), "```", ""]
    lines += _arguments_table(parser)
    lines += ["Read by the `studio` entry point itself, before any command:", "",
              "| argument | what it does |", "|---|---|"]
    lines += [f"| `{flag}` | {_cell(text)} |" for flag, text in ENTRY_FLAGS]
    lines += ["", "## Commands", "", "| command | what it does |", "|---|---|"]
    commands = list(_commands(parser))
    lines += [f"| [`{child.prog}`](#{_anchor(child.prog)}) | {_cell(text)} |" for _, text, child in commands]
    lines.append("")
    for name, text, child in commands:
        lines += _command_section(name, text, child, level=3)
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        out.reconfigure(encoding="utf-8")  # help texts hold ε, ×, …, whatever the locale
    out.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
