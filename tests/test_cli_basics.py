import subprocess
import sys

from click.testing import CliRunner

from ctxtool import __version__
from ctxtool.cli import cli


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_every_command_has_help():
    runner = CliRunner()
    top = runner.invoke(cli, ["--help"])
    assert top.exit_code == 0
    for name in cli.list_commands(None):
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Usage:" in result.output


def test_unknown_command_is_usage_error():
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2


def test_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "ctxtool", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout
