"""The command names ``studio/app.py`` knows without importing the CLI are the CLI's own."""

from studio.command_names import COMMAND_NAMES


def test_the_names_known_without_the_cli_are_the_clis_commands() -> None:
    from studio import cli

    assert COMMAND_NAMES == cli.COMMANDS
