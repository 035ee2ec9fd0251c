"""The LLM agent's command line end to end, against a stub endpoint that speaks function calling, in a
compile-only session (no GPU) of one problem: four tasks, two at a time.

The stub plays a model that compiles a broken kernel, compiles the stored solution, submits it and
keeps a skill in one reply, asks for its budget and finishes. The first solo's third request is
answered 429 with Retry-After once; the second solo's skill makes the skill arm that receives it meet
nothing but 503s. Every reply reports usage with prompt-cache tokens."""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from build_under_test import require_build

ROOT = Path(__file__).resolve().parents[3]
require_build("MKB_LIB_PATH", "MKB_TEST_CLI")

import mkb  # noqa: E402
from stub_chat import StubServer, completion, tool_calls  # noqa: E402

ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
SOLUTION = (ROOT / "problems/extra" / ROUTING / "solutions/cuda.cu").read_text()
BROKEN = "this does not compile\n/* mkb:plan\nlaunch k grid(1) block(1) args()\n*/\n"
STORM_SKILL = "a skill whose arm meets a 503 storm"


class ScriptedModel:
    """The stub's answers. A conversation is numbered at its first answer; its tool-call ids carry it."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.conversations = 0
        self.both_solos_at_once = False
        self.rate_limited = False

    def usage(self, turn: int) -> dict:
        return {"prompt_tokens": 1000, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": 250 * turn}}

    def __call__(self, body: dict):
        assistant = [m for m in body["messages"] if m["role"] == "assistant"]
        turn = len(assistant)
        if STORM_SKILL in body["messages"][1]["content"]:
            return 503, {}, {"error": {"message": "overloaded"}}
        if turn == 0:
            with self.lock:
                self.conversations += 1
                number = self.conversations
                self.lock.notify_all()
                if number == 1:  # the first solo waits for the second to begin while it is still open
                    self.both_solos_at_once = self.lock.wait_for(lambda: self.conversations >= 2, timeout=20)
        else:
            number = int(assistant[0]["tool_calls"][0]["id"].split("-")[0][1:])
        if number == 1 and turn == 2 and not self.rate_limited:
            self.rate_limited = True
            return 429, {"Retry-After": "1"}, {"error": {"message": "rate limited"}}
        skill = STORM_SKILL if number == 2 else f"skill of conversation {number}"
        calls = [[("compile", {"source": BROKEN})], [("compile", {"source": SOLUTION})],
                 [("submit", {"source": SOLUTION}), ("keep_skill", {"text": skill})], [("budget", {})],
                 [("finish", {})]][turn]
        return 200, {}, completion(tool_calls(f"c{number}-t{turn}", *calls), self.usage(turn))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One run of the agent; the tests below read what it left."""
    tmp = tmp_path_factory.mktemp("llm_agent")
    ledger = tmp / "run.ledger"
    model = ScriptedModel()
    with StubServer(model) as stub:
        env = dict(os.environ, MKB_LLM_BASE_URL=stub.url, MKB_LLM_MODEL="stub-model", MKB_LLM_API_KEY="secret",
                   MKB_CACHE_DIR=str(tmp / "cache"))
        out = subprocess.run([sys.executable, str(ROOT / "samples/python/llm_agent"), "--ledger", str(ledger),
                              "--dsl-a", "cuda", "--dsl-b", "cuda", "--problems", ROUTING, "--compile-only",
                              "--concurrency", "2", "--max-retries", "2", "--backoff", "0.01",
                              "--price", "input=3.0,cached=0.3,output=15.0"],
                             capture_output=True, text=True, timeout=600, env=env)
    dump = subprocess.run([os.environ["MKB_TEST_CLI"], "ledger", "dump", str(ledger)], capture_output=True,
                          text=True, check=True)
    records = [json.loads(line) for line in dump.stdout.splitlines()]
    finished = {r["body"]["trial"]["arm"]: r["body"] for r in records if r["body_type"] == "TrialFinished"}
    transcripts = {}
    for path in sorted(Path(str(ledger) + ".transcripts").rglob("*.jsonl")):
        transcripts[path.relative_to(Path(str(ledger) + ".transcripts")).as_posix()] = \
            [json.loads(line) for line in path.read_text().splitlines()]
    return {"out": out, "stub": stub, "model": model, "finished": finished, "transcripts": transcripts,
            "ledger": ledger}


def storm_arm(run) -> str:
    return next(arm for arm, body in run["finished"].items() if body["input_tokens"] == 0)


def test_the_run_ends_with_the_storm_arm_failed_and_the_others_done(run):
    out = run["out"]
    assert out.returncode == 1, out.stdout + out.stderr  # one attempt ended on an error: not 0
    assert "1 of 4 attempts ended on an error" in out.stderr
    assert "HTTP 503: overloaded" in out.stdout and "failed 3 times" in out.stdout
    assert sorted(run["finished"]) == ["a2b_skill", "b2a_skill", "solo_a", "solo_b"]
    assert storm_arm(run) in ("a2b_skill", "b2a_skill")
    assert run["finished"][storm_arm(run)]["verdict"] == "no_kernel"
    assert "usage of model stub-model" in out.stdout  # the score table was printed


def test_two_tasks_ran_at_once(run):
    assert run["model"].both_solos_at_once


def test_a_429_with_retry_after_was_waited_for_and_retried(run):
    log = run["stub"].log
    (index,) = [i for i, (_, _, status) in enumerate(log) if status == 429]
    limited_at, body, _ = log[index]
    retried_at = next(t for t, b, s in log[index + 1:] if b["messages"] == body["messages"])
    assert retried_at - limited_at >= 1.0
    assert "HTTP 429: rate limited; retry 1/2 in 1.0 s" in run["out"].stdout


def test_compile_checks_cost_no_submission(run):
    for arm, body in run["finished"].items():
        assert body["submissions_used"] == (0 if arm == storm_arm(run) else 1), arm  # after two compiles each
    (scored,) = mkb.score_ledgers([run["ledger"]])["models"]
    assert {arm: usage["compile_checks"] for arm, usage in scored["usage"].items()} == \
        {arm: 0 if arm == storm_arm(run) else 2 for arm in run["finished"]}  # the ledger recorded them
    for name, records in run["transcripts"].items():
        results = [r["result"] for r in records if r["type"] == "tool"]
        if storm_arm(run) in name:
            continue
        assert results[0].startswith("verdict: COMPILE_ERROR") and results[1].startswith("verdict: COMPILED")
        assert "submissions left: 10;" in results[1]  # two compile checks, nothing spent
        assert json.loads(results[4])["submissions_left"] == 9  # the one submission


def test_usage_with_cached_tokens_and_its_priced_cost_are_in_the_ledger(run):
    # Five replies a task: 1000 prompt tokens each, 0 + 250 + 500 + 750 + 1000 of them cached, 100 out.
    cost = (2500 * 3.0 + 2500 * 0.3 + 500 * 15.0) / 1e6
    for arm, body in run["finished"].items():
        expected = (0, 0, 0, 0.0) if arm == storm_arm(run) else (5000, 2500, 500, cost)
        got = (body["input_tokens"], body["cached_input_tokens"], body["output_tokens"], body["cost_usd"])
        assert got == pytest.approx(expected), arm
    (scored,) = mkb.score_ledgers([run["ledger"]])["models"]  # as `mkb score --json` gives it
    for arm, usage in scored["usage"].items():
        expected = (0, 0, 0.0) if arm == storm_arm(run) else (5000, 2500, cost)
        assert (usage["input_tokens"], usage["cached_input_tokens"], usage["cost_usd"]) == pytest.approx(expected)


def test_transcripts_hold_every_exchange(run):
    transcripts = run["transcripts"]
    assert sorted(transcripts) == sorted(f"{ROUTING}/cuda/{arm}/r0.jsonl" for arm in run["finished"])
    for name, records in transcripts.items():
        kinds = [r["type"] for r in records]
        assert kinds[0] == "task" and kinds[-1] == "end", name
        exchanges = [r for r in records if r["type"] == "exchange"]
        if storm_arm(run) in name:
            assert kinds.count("retry") == 2 and not exchanges and "503" in records[-1]["error"]
            continue
        assert [r["turn"] for r in exchanges] == [1, 2, 3, 4, 5] and records[-1]["reason"] == "finish"
        assert [r["name"] for r in records if r["type"] == "tool"] == \
            ["compile", "compile", "submit", "keep_skill", "budget", "finish"]
        assert [r["counts"]["cached"] for r in exchanges] == [0, 250, 500, 750, 1000]
        # The requests, read in order, are the whole conversation the endpoint saw last.
        number = exchanges[0]["reply"]["tool_calls"][0]["id"].split("-")[0]
        last = [b for _, b, s in run["stub"].log if s == 200 and any(
            m.get("tool_calls", [{}])[0].get("id", "").startswith(number + "-") for m in b["messages"]
            if m["role"] == "assistant")][-1]
        assert [m for r in exchanges for m in r["request"]] == last["messages"]
    retried = [records for records in transcripts.values() if any(r.get("status") == 429 for r in records)]
    assert len(retried) == 1 and [r for r in retried[0] if r["type"] == "retry"][0]["wait_s"] == 1.0


def agent(*args, env=None):
    return subprocess.run([sys.executable, str(ROOT / "samples/python/llm_agent"), *args], capture_output=True,
                          text=True, timeout=60, env=env)


def test_help_names_every_option_without_the_library():
    env = {key: value for key, value in os.environ.items() if key not in ("MKB_LIB_PATH", "LD_LIBRARY_PATH")}
    out = agent("--help", env=env)
    assert out.returncode == 0, out.stderr
    for option in ("--ledger", "--concurrency", "--max-turns", "--max-retries", "--backoff", "--max-backoff",
                   "--timeout", "--price", "--prices", "--compile-only", "--trials", "MKB_LLM_BASE_URL",
                   "MKB_LLM_MODEL", "MKB_LLM_API_KEY", "transcripts"):
        assert option in out.stdout, option


@pytest.mark.parametrize("args, environment, message", [
    (["--price", "input=3"], {}, "--price: no output price"),
    (["--prices", "missing.json"], {}, "--prices missing.json: No such file"),
    (["--concurrency", "0"], {}, "--concurrency: must be at least 1, not 0"),
    (["--price", "input=1,output=2", "--prices", "p.json"], {}, "not allowed with argument"),
    ([], {"MKB_LLM_MODEL": ""}, "set MKB_LLM_BASE_URL (such as https://api.openai.com/v1) and MKB_LLM_MODEL"),
])
def test_a_bad_command_line_is_named(tmp_path, args, environment, message):
    env = {**os.environ, "MKB_LLM_BASE_URL": "http://127.0.0.1:9/v1", "MKB_LLM_MODEL": "m", **environment}
    out = agent("--ledger", str(tmp_path / "x.ledger"), *args, env=env)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert not (tmp_path / "x.ledger").exists()
