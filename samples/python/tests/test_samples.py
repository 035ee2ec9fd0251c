"""The replay agent against the real libmkb with the worker TEST DOUBLE standing in for the GPU (the
LLM agent's tests are test_llm_agent*.py). CTest passes the build's paths (tests/CMakeLists.txt);
there is no build folder to fall back on."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bindings" / "python"))


def from_build(name: str) -> str:
    """A path into the build under test, from the environment CTest sets."""
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: run these tests through CTest (ctest -R bindings.python), "
                                "which passes the build's paths")
    return value


from_build("MKB_LIB_PATH")  # `import mkb` below, and the replay agent, load the library it names
WORKER = from_build("MKB_TEST_WORKER_DOUBLE")

import mkb  # noqa: E402


# Two problems keep the protocol's figures fixed as the suite grows.
TWO_PROBLEMS = "fused_add_rmsnorm_h4096_llama31_8b_bf16,topk_softmax_routing_mixtral_8x7b_bf16"


def test_replay_agent_plays_the_protocol(tmp_path):
    ledger = tmp_path / "replay.ledger"
    out = subprocess.run([sys.executable, str(ROOT / "samples/python/replay_agent.py"), "--ledger", str(ledger),
                          "--dsl-a", "cuda", "--dsl-b", "cuda", "--worker", WORKER, "--problems", TWO_PROBLEMS],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("final evaluation: ") == 8
    assert "paired comparisons" in out.stdout
    assert "a2b_skill" in out.stdout
    scores = mkb.score_ledgers([str(ledger)])
    assert len(scores["directions"]) == 2


def test_replay_agent_stops_naming_what_the_pair_lacks(tmp_path):
    # The default pair, with an interpreter that has none of the DSLs' packages: no session is opened
    # and nothing is scored; the message names both DSLs and the interpreter.
    env = dict(os.environ, MKB_PYTHON="/nonexistent/python3")
    out = subprocess.run([sys.executable, str(ROOT / "samples/python/replay_agent.py"), "--ledger",
                          str(tmp_path / "replay.ledger"), "--worker", WORKER],
                         capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "cannot run the DSL pair cute-dsl and tirx here" in out.stderr
    assert "  cute-dsl: " in out.stderr and "  tirx: " in out.stderr
    assert "/nonexistent/python3" in out.stderr
    assert not (tmp_path / "replay.ledger").exists()
    assert "score" not in out.stdout
