"""Issue 39.3: a run name, tag or message holding terminal escape sequences (planted by anyone who can write a
shared store) is printed as visible text by every command, never obeyed; ``--json`` escapes it as JSON does."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import run_cli

CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: sets the clipboard in many terminals
CLEAR = "\x1b[2J\x1b[H"  # clears the screen
CSI_C1 = "\x9b31m"  # the one-byte (C1) form of ESC [
BIDI = "\u202egnp.exe"  # a right-to-left override: the line reads other than it is


def raw_controls(text: str) -> list[str]:
    return sorted({c for c in text if (ord(c) < 32 and c not in "\n") or 0x7f <= ord(c) <= 0x9f or c == "\u202e"})


@pytest.fixture
def planted(home):
    from studio.core.config import RunConfig
    from studio.core.runs.store import RunStore

    store = RunStore(home)
    info = store.create_run(RunConfig(), name=f"evil{CLIPBOARD}{CLEAR}{CSI_C1}{BIDI}")
    store.add_tags([info.id], [f"t{CLIPBOARD}"])
    store.set_status(info.id, "failed", message=f"boom{CLEAR}")
    store.close()
    return info.id


def test_runs_prints_planted_escapes_as_visible_text(planted):
    env = dict(os.environ)
    table = run_cli("runs", env=env)
    assert table.returncode == 0, table.stderr
    assert raw_controls(table.stdout) == [], repr(table.stdout)
    assert "evil\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J" in table.stdout and "\\x9b31m" in table.stdout
    assert "\\u202egnp.exe" in table.stdout and "[t\\x1b]52" in table.stdout

    listed = run_cli("runs", "--json", env=env)
    assert raw_controls(listed.stdout) == [], repr(listed.stdout)
    run = json.loads(listed.stdout)["runs"][0]
    assert run["name"] == f"evil{CLIPBOARD}{CLEAR}{CSI_C1}{BIDI}"  # JSON keeps the text exactly, escaped
    assert run["tags"] == [f"t{CLIPBOARD}"] and run["message"] == f"boom{CLEAR}"


def test_errors_that_quote_user_text_are_sanitised(planted):
    for args in (["runs", "--sort", f"x{CLEAR}"], ["runs", "--filter", f"test_acc>{CLIPBOARD}"],
                 [f"x{CLEAR}y"], ["eval", f"nope{CLEAR}"]):
        proc = run_cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.startswith("studio: error: ") and raw_controls(proc.stderr) == [], repr(proc.stderr)


def test_safe_text_keeps_ordinary_text_and_the_progress_redraw():
    import io

    from studio.cli.terminal_safe import SafeStream, safe_text

    assert safe_text("naïve — 日本語\ttab\n") == "naïve — 日本語\ttab\n"
    assert safe_text("a\rb\x00c\x7f") == "a\\x0db\\x00c\\x7f"
    out = io.StringIO()
    stream = SafeStream(out)  # type: ignore[arg-type]
    stream.write("\r[####] 40% epoch 2\x1b[A")
    assert out.getvalue() == "\r[####] 40% epoch 2\\x1b[A"
