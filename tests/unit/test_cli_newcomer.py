"""`studio` for someone who has never used it: typos, --help, --version, no display, no runs."""

import json
import os
import subprocess
import sys

import pytest

from studio import app, cli


def test_a_typo_is_not_opened_as_a_gui_path(monkeypatch, capsys):
    monkeypatch.setattr("studio.gui.app.start.run_gui", lambda argv, engine=None: pytest.fail("the GUI opened"))
    assert app.main(["trian"]) == 2
    assert "unknown command 'trian'; did you mean 'train'?" in capsys.readouterr().err
    assert app.main(["missing-config.toml"]) == 2
    assert "no such file or folder: 'missing-config.toml'" in capsys.readouterr().err
    assert app.main(["zzz"]) == 2
    assert "studio --help" in capsys.readouterr().err


def test_an_existing_path_still_opens_the_gui(monkeypatch, tmp_path):
    opened = []
    monkeypatch.setattr("studio.gui.app.start.run_gui", lambda argv, engine=None: opened.append(argv) or 0)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    (tmp_path / "train").mkdir()  # a folder named like a command is still a command; any other path opens
    config = tmp_path / "my.toml"
    config.write_text("")
    assert app.main([str(config)]) == 0
    assert app.main([]) == 0
    assert opened == [[str(config)], []]


def test_no_display_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("studio.gui.app.start.run_gui", lambda argv, engine=None: pytest.fail("Qt would abort"))
    assert app.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no display" in err and "studio --help" in err


def test_help_mentions_the_gui_paths_and_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "open the window" in out and "studio PATH" in out and "--version" in out


def test_version_is_studio_and_torch_without_importing_torch():
    code = ("import sys; from studio.app import main; main(['--version']); "
            "print('torch imported:', 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.getcwd()}).stdout
    from studio import __version__

    assert out.startswith(f"studio {__version__} (torch ") and "torch imported: False" in out


def test_runs_says_there_are_none_and_how_to_start(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("STUDIO_HOME", str(tmp_path))
    assert cli.main(["runs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No runs yet") and "studio train" in out
    assert cli.main(["runs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"runs": []}

