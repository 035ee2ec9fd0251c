"""The MCP server's command line (mkb/mcp/cli.py): the session options `mkb plan` and `mkb check` take
are taken under the same names, every one reaches mkb.Session, and bad ones are refused by name; the SDK
is pinned to one version everywhere. Needs no MCP SDK."""
import inspect
import json
import re
import subprocess
from pathlib import Path

import pytest

from mkb._options import open_options
from mkb.mcp import cli

ROOT = Path(__file__).resolve().parents[3]
# Output-format flags of the commands, not session options.
NOT_SESSION = {"--help", "--json", "--problem", "--dsl"}


def flags(help_text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text))


@pytest.mark.parametrize("command", ["plan", "check"])
def test_the_cli_session_options_are_taken_by_the_same_names(mkb_cli, command):
    shown = subprocess.run([mkb_cli, command, "--help"], capture_output=True, text=True, check=True).stdout
    ours = flags(cli.parser().format_help())
    assert flags(shown) - NOT_SESSION <= ours


def test_every_session_option_reaches_mkb_session():
    args = cli.parse(["--ledger", "run.ledger", "--dsl-a", "cuda", "--dsl-b", "tirx", "--seed", "0x10",
                      "--replicates", "3", "--compile-only"])
    options = cli.session_options(args)
    assert set(options) <= set(inspect.signature(open_options).parameters)
    assert options["seed"] == 16 and options["replicates"] == 3 and options["compile_only"]
    assert (options["dsl_a"], options["dsl_b"], options["ledger_path"]) == ("cuda", "tirx", "run.ledger")
    # Every option of the parser's session group is handed on.
    group = next(g for g in cli.parser()._action_groups if g.title.startswith("the session"))
    assert len(options) == len(group._group_actions)


@pytest.mark.parametrize("argv, complaint", [
    (["--dsl-a", "cuda"], "--dsl-a and --dsl-b"),
    (["--replicates", "0"], "at least 1"),
    (["--http", "70000"], "TCP port"),
    (["--host", "0.0.0.0"], "--host only applies with --http"),
    ([], "--ledger"),
])
def test_a_bad_command_line_is_refused_naming_what_is_wrong(argv, complaint, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.parse([*(["--ledger", "x"] if argv else []), *argv])
    assert exit_.value.code == 2 and complaint in capsys.readouterr().err


def test_the_sdk_pin_is_one_version_everywhere():
    pinned = [line for line in (ROOT / ".ci" / "mcp-requirements.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    extra = json.loads(re.search(r"^mcp = (\[.*\])$", (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1))
    from mkb.mcp.__main__ import SDK
    assert pinned == extra == [SDK]
