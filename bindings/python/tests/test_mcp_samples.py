"""samples/mcp: the server as each client configuration starts it (Claude Code's .mcp.json, Codex CLI's
config.toml), driven by the MCP SDK's client. Only what this machine must differ in is added: a
compile-only session of one problem, a ledger in the test's folder, and the build under test."""
import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP Python SDK (mcp==2.3.0, .ci/mcp-requirements.txt) is not installed")
import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples" / "mcp"
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"


def claude_code() -> dict:
    """.mcp.json's server with Claude Code's expansion: ${VAR}, ${VAR:-default}; MKB_REPO is the clone."""
    variables = {"MKB_REPO": str(ROOT)}

    def expand(text: str) -> str:
        def one(match: re.Match) -> str:
            name, default = match.group(1), match.group(3)
            assert name in variables or default is not None, f"{name} is neither set here nor defaulted"
            return variables.get(name, default)
        return re.sub(r"\$\{(\w+)(:-([^}]*))?\}", one, text)

    entry = json.loads((SAMPLES / ".mcp.json").read_text())["mcpServers"]["mkb"]
    assert entry["type"] == "stdio"
    return {"command": expand(entry["command"]), "args": [expand(a) for a in entry["args"]],
            "env": {k: expand(v) for k, v in entry["env"].items()}}


def codex() -> dict:
    """codex-config.toml's server, with the clone where it says /path/to/libmkb."""
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python 3.11's tomllib")
    text = (SAMPLES / "codex-config.toml").read_text().replace("/path/to/libmkb", str(ROOT))
    entry = tomllib.loads(text)["mcp_servers"]["mkb"]
    assert entry["tool_timeout_sec"] >= 2400  # a submission may run long: the whole task budget
    return {"command": entry["command"], "args": entry["args"], "env": entry["env"]}


@pytest.mark.parametrize("configured", [claude_code, codex], ids=["claude-code", "codex"])
def test_the_sample_configuration_serves_a_session(configured, tmp_path, worker):
    config = configured()
    assert config["command"] == str(ROOT / ".venv" / "bin" / "python3")
    if not Path(config["command"]).exists():
        pytest.skip(f"{config['command']} does not exist: scripts/setup makes the .venv the samples name")
    # The samples name the clone's build/lib; the test runs the build under test, wherever it is.
    assert config["env"]["MKB_LIB_PATH"] == str(ROOT / "build" / "lib")
    assert config["env"]["PYTHONPATH"] == str(ROOT / "bindings" / "python")
    env = {**config["env"], "MKB_LIB_PATH": os.environ["MKB_LIB_PATH"]}
    extra = ["--compile-only", "--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", ROUTING,
             "--ledger", str(tmp_path / "sample.ledger"), "--cache-dir", str(tmp_path / "cache")]
    if worker:
        extra += ["--worker", worker]
    params = StdioServerParameters(command=config["command"], args=[*config["args"], *extra], env=env,
                                   cwd=str(tmp_path))
    assert config["args"][:2] == ["-m", "mkb.mcp"]

    async def body():
        async with Client(params) as client:
            assert "next_task" in {tool.name for tool in (await client.list_tools()).tools}
            taken = await client.call_tool("next_task", {})
            assert not taken.is_error and taken.structured_content["task"]["problem"] == ROUTING

    anyio.run(body)
    assert (tmp_path / "sample.ledger").stat().st_size > 0


def test_the_replay_client_plays_a_four_arm_session_through_the_server(tmp_path, worker):
    """samples/mcp/replay_client.py, as the H200 run uses it, on a compile-only session: every task is
    compiled for free, submitted once and finished, and the ledger's scores count one of each."""
    import subprocess
    import sys
    ledger = tmp_path / "replay.ledger"
    args = [sys.executable, str(SAMPLES / "replay_client.py"), "--ledger", str(ledger), "--compile-only",
            "--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", ROUTING, "--model", "replay",
            "--cache-dir", str(tmp_path / "cache")]
    if worker:
        args += ["--worker", worker]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    played = [line for line in done.stdout.splitlines() if line.startswith(ROUTING + "/cuda/")]
    assert len(played) == 4, done.stdout
    for line in played:
        assert "compile check compiled (counted: False); submission compiled; final compiled" in line, line
    import mkb
    (model,) = mkb.score_ledgers([ledger])["models"]
    assert model["model"] == "replay"
    assert sorted(model["usage"]) == ["a2b_skill", "b2a_skill", "solo_a", "solo_b"]
    assert all(arm["submissions"] == 1 and arm["compile_checks"] == 1 for arm in model["usage"].values()), model
