"""llm_agent/attempt.py in-process against a stub endpoint: when an attempt ends, what it records, and
which kernel it leaves final. Compile-only sessions, and the worker TEST DOUBLE where a kernel must pass."""
import json
import os
import sys
from pathlib import Path

import pytest
from build_under_test import require_build

ROOT = Path(__file__).resolve().parents[3]
require_build("MKB_LIB_PATH", "MKB_TEST_WORKER_DOUBLE")

import mkb  # noqa: E402
from llm_agent.attempt import CLOSING, NUDGE, Attempt  # noqa: E402
from llm_agent.chat import Chat  # noqa: E402
from llm_agent.transcript import Transcript  # noqa: E402
from llm_agent.usage import Prices  # noqa: E402
from stub_chat import StubServer, completion, tool_calls  # noqa: E402

ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
SOLUTION = (ROOT / "problems/extra" / ROUTING / "solutions/cuda.cu").read_text()
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 400}}


def turn_of(body):
    return sum(1 for message in body["messages"] if message["role"] == "assistant")


def one_task(tmp_path, **options):
    session = mkb.Session(dsl_a="cuda", dsl_b="cuda", problems=ROUTING, cache_dir=tmp_path / "cache",
                          trials=f"{ROUTING}/cuda/solo_a/r0", **options)
    (task,) = session.next_tasks(1)
    return session, task


def attempt(stub, task, tmp_path, max_turns=10, prices=None):
    lines = []
    chat = Chat(stub.url, "stub-model", "secret", max_retries=0)
    with Transcript(tmp_path / "t.jsonl") as transcript:
        outcome = Attempt(chat, task, transcript, max_turns=max_turns, prices=prices, log=lines.append).run()
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    return outcome, lines, records


def test_a_model_that_calls_no_tool_is_nudged_until_max_turns(tmp_path):
    session, task = one_task(tmp_path, compile_only=True)
    with session, task, StubServer(lambda body: (200, {}, completion({"content": "thinking"}, USAGE, "stop"))) as stub:
        outcome, lines, records = attempt(stub, task, tmp_path, max_turns=3,
                                          prices=Prices.parse("input=2,cached=1,output=10"))
    assert outcome.reason == "max turns" and outcome.error is None
    assert outcome.final.verdict == mkb.Verdict.NO_KERNEL and lines[-1] == f"{task.id}: final NO_KERNEL"
    assert len(stub.log) == 3 and stub.log[1][1]["messages"][-1] == {"role": "user", "content": NUDGE}
    exchanges = [r for r in records if r["type"] == "exchange"]
    assert [r["turn"] for r in exchanges] == [1, 2, 3]
    assert exchanges[0]["cost_usd"] == pytest.approx((600 * 2 + 400 * 1 + 100 * 10) / 1e6)
    assert [r["type"] for r in records][0] == "task" and records[-1]["type"] == "end"
    assert records[-1]["reason"] == "max turns"


def test_spent_submissions_leave_one_closing_turn(tmp_path):
    def respond(body):
        if turn_of(body) == 0:
            return 200, {}, completion(tool_calls("a", ("submit", {"source": SOLUTION})), USAGE)
        return 200, {}, completion(tool_calls("b", ("keep_skill", {"text": "closing skill"})), USAGE)

    session, task = one_task(tmp_path, compile_only=True, budget_submissions=1)
    with session, task, StubServer(respond) as stub:
        outcome, _, _ = attempt(stub, task, tmp_path)
    assert outcome.reason == "budget spent" and len(stub.log) == 2
    assert stub.log[1][1]["messages"][-1] == {"role": "user", "content": CLOSING}
    assert outcome.final.verdict == mkb.Verdict.COMPILED


def test_a_permanent_error_ends_the_attempt_with_its_message(tmp_path):
    session, task = one_task(tmp_path, compile_only=True)
    with session, task, StubServer(lambda body: (401, {}, {"error": {"message": "bad key"}})) as stub:
        outcome, lines, records = attempt(stub, task, tmp_path)
    assert outcome.reason == "chat error" and "HTTP 401: bad key (permanent; not retried)" in outcome.error
    assert outcome.final.verdict == mkb.Verdict.NO_KERNEL
    assert any("ended: " in line and "HTTP 401" in line for line in lines)
    assert records[-1]["type"] == "end" and "HTTP 401" in records[-1]["error"]


def test_the_fastest_passing_submission_is_final_unless_the_model_names_one(tmp_path):
    def respond(body):
        turn = turn_of(body)
        if turn < 2:  # a fast kernel, then a slower one
            source = f"{SOLUTION}\n// mkb-double: time_us={9 if turn == 0 else 20}\n"
            return 200, {}, completion(tool_calls(f"t{turn}", ("submit", {"source": source})), USAGE)
        return 200, {}, completion(tool_calls("end", ("finish", {})), USAGE)

    session, task = one_task(tmp_path, worker_path=os.environ["MKB_TEST_WORKER_DOUBLE"])
    with session, task, StubServer(respond) as stub:
        outcome, lines, records = attempt(stub, task, tmp_path)
    assert outcome.reason == "finish" and outcome.final.verdict == mkb.Verdict.PASSED
    assert outcome.final.time_us == 9  # the slower later kernel did not replace it
    assert f"{task.id}: named the fastest passing submission 1 final" in lines
    tools = [r for r in records if r["type"] == "tool"]
    assert [t["name"] for t in tools] == ["submit", "submit", "finish"]
    assert "verdict: PASSED" in tools[0]["result"] and "submission: 2" in tools[1]["result"]
