"""llm_agent/run.py: Ctrl-C stops the run after the exchange in flight and leaves the attempt unfinished,
so that resuming the ledger plans it again."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from build_under_test import require_build

ROOT = Path(__file__).resolve().parents[3]
require_build("MKB_LIB_PATH", "MKB_TEST_CLI")

import mkb  # noqa: E402
from stub_chat import StubServer, completion, tool_calls  # noqa: E402

ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
TRIAL = f"{ROUTING}/cuda/solo_a/r0"


def forever(body):
    """A model that asks for its budget, again and again."""
    time.sleep(0.1)
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return 200, {}, completion(tool_calls(f"t{turn}", ("budget", {})), {"prompt_tokens": 10, "completion_tokens": 1})


def test_ctrl_c_leaves_the_attempt_for_a_resumed_ledger(tmp_path):
    ledger = tmp_path / "run.ledger"
    transcript = Path(f"{ledger}.transcripts") / f"{TRIAL}.jsonl"
    options = ["--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", ROUTING, "--trials", TRIAL, "--compile-only"]
    with StubServer(forever) as stub:
        env = dict(os.environ, MKB_LLM_BASE_URL=stub.url, MKB_LLM_MODEL="stub-model", MKB_LLM_API_KEY="secret",
                   MKB_CACHE_DIR=str(tmp_path / "cache"))
        process = subprocess.Popen([sys.executable, str(ROOT / "samples/python/llm_agent"), "--ledger", str(ledger),
                                    "--max-turns", "10000", *options], env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not transcript.exists() or transcript.read_text().count('"exchange"') < 2):
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stdout + stderr
    assert "interrupted: stopping after the exchanges in flight" in stderr
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert records[-1]["type"] == "interrupted" and not any(r["type"] == "end" for r in records)
    dump = subprocess.run([os.environ["MKB_TEST_CLI"], "ledger", "dump", str(ledger)], capture_output=True,
                          text=True, check=True)
    assert [json.loads(line)["body_type"] for line in dump.stdout.splitlines()] == ["SessionOpened", "TrialStarted"]
    with mkb.Session(ledger_path=ledger, model="stub-model", dsl_a="cuda", dsl_b="cuda", problems=ROUTING,
                     trials=TRIAL, compile_only=True, cache_dir=tmp_path / "cache") as session:
        (task,) = session.next_tasks(1)
        assert task.id == TRIAL  # planned again
        task.close()
