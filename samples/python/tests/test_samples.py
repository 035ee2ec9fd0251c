"""The sample agents against the real libmkb with the worker TEST DOUBLE standing in for the GPU, and
the LLM agent against a stub chat server on loopback that returns scripted replies. CTest passes the
build's paths (tests/CMakeLists.txt); there is no build folder to fall back on."""
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "samples" / "python"))
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
MKB_CLI = from_build("MKB_TEST_CLI")
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"

import llm_agent  # noqa: E402
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


class StubChat(BaseHTTPRequestHandler):
    """Scripted replies: a kernel that does not compile, the stored solution with a skill, a slower
    version of it, then DONE. Usage is OpenAI-style, with prompt-cache tokens."""
    requests: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StubChat.requests.append(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn == 0:
            content = "```cuda\nthis does not compile\n/* mkb:plan\nlaunch k grid(1) block(1) args()\n*/\n```"
        elif turn in (1, 2):
            solution = (ROOT / "problems/extra" / ROUTING / "solutions/cuda.cu").read_text()
            content = f"```cuda\n{solution}\n// mkb-double: time_us={9 if turn == 1 else 20}\n```\n```skill\nbranch-free top-2\n```"
        else:
            content = "DONE"
        reply = {"choices": [{"message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                           "prompt_tokens_details": {"cached_tokens": 250 * turn}}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub_server():
    StubChat.requests = []
    server = HTTPServer(("127.0.0.1", 0), StubChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_usage_counts_of_both_styles():
    openai = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 800}}
    assert llm_agent.usage_counts(openai) == (1000, 800, 100)
    assert llm_agent.usage_counts({"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": None}) == (10, 0, 1)
    anthropic = {"input_tokens": 50, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 100,
                 "output_tokens": 70}
    assert llm_agent.usage_counts(anthropic) == (1050, 900, 70)
    assert llm_agent.usage_counts({}) == (0, 0, 0)


def test_llm_agent_against_a_stub_server(stub_server, tmp_path):
    chat = llm_agent.Chat(stub_server, "stub-model", "secret")
    with mkb.Session(worker_path=WORKER, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, model="stub-model",
                     ledger_path=str(tmp_path / "llm.ledger"), cache_dir=str(tmp_path / "cache")) as session:
        task = session.next_tasks(1)[0]
        assert task.arm == mkb.Arm.SOLO_A
        lines = []
        with task:
            final = llm_agent.attempt(chat, task, rounds=5, log=lines.append)
        assert final.verdict == mkb.Verdict.PASSED
        assert final.time_us == 9  # the faster kernel was named final; the slower one came later
        assert "COMPILE_ERROR" in lines[0] and "PASSED 9.0 us" in lines[1] and "PASSED 20.0 us" in lines[2]
        first, second = StubChat.requests[0], StubChat.requests[1]
        assert first["model"] == "stub-model"
        assert task.problem in first["messages"][1]["content"]  # the instruction went in
        assert "COMPILE_ERROR" in second["messages"][-1]["content"]  # the feedback went back
        next_tasks = session.next_tasks(4, wait_ms=1000)
        skill_arm = [t for t in next_tasks if t.arm == mkb.Arm.A2B_SKILL][0]
        assert "branch-free top-2" in skill_arm.source_skill
        StubChat.requests = []
        with skill_arm:
            assert llm_agent.attempt(chat, skill_arm, rounds=5, log=lines.append).time_us == 9
        for t in next_tasks:
            t.close()
    dump = subprocess.run([MKB_CLI, "ledger", "dump", str(tmp_path / "llm.ledger")],
                          capture_output=True, text=True, check=True)
    records = [json.loads(line) for line in dump.stdout.splitlines()]
    finished = {r["body"]["trial"]["arm"]: r["body"] for r in records if r["body_type"] == "TrialFinished"}
    solo, skill_arm = finished["solo_a"], finished["a2b_skill"]  # the dump names arms
    # Four turns, the cached part of their prompts 0 + 250 + 500 + 750 tokens.
    assert (solo["input_tokens"], solo["cached_input_tokens"], solo["output_tokens"]) == (4000, 1500, 400)
    assert solo["final_kernel"] == "submission 2"
    assert skill_arm["skill"] == "branch-free top-2"  # a skill arm keeps a skill too
    assert skill_arm["cached_input_tokens"] == 1500
