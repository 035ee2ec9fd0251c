"""llm_agent/tools.py: the tools' arguments are checked, and each does what its description says to a
task of a compile-only session (no GPU)."""
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "samples" / "python"))
sys.path.insert(0, str(ROOT / "bindings" / "python"))
if not os.environ.get("MKB_LIB_PATH"):
    raise pytest.UsageError("MKB_LIB_PATH is not set: run these tests through CTest (ctest -R bindings.python)")

import mkb  # noqa: E402
from llm_agent.tools import TOOLS, ToolError, Toolbox, parse_arguments  # noqa: E402

ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
SOLUTION = (ROOT / "problems/extra" / ROUTING / "solutions/cuda.cu").read_text()
BROKEN = "this does not compile\n/* mkb:plan\nlaunch k grid(1) block(1) args()\n*/\n"


def test_every_tool_is_described_for_the_model():
    names = [tool["function"]["name"] for tool in TOOLS]
    assert names == ["compile", "submit", "keep_skill", "set_final", "budget", "finish"]
    described = {tool["function"]["name"]: tool["function"]["description"] for tool in TOOLS}
    assert "free" in described["compile"].lower() and "COSTS ONE" in described["submit"]


@pytest.mark.parametrize("name, text, message", [
    ("run", "{}", "there is no tool 'run'; the tools are compile, submit"),
    ("submit", "{source: 1}", "the arguments of submit are not valid JSON"),
    ("submit", "[1]", "the arguments of submit must be a JSON object"),
    ("submit", "{}", "submit needs the argument 'source'"),
    ("submit", '{"source": 3}', "the argument 'source' of submit must be a string"),
    ("set_final", '{"submission": "2"}', "the argument 'submission' of set_final must be an integer"),
    ("set_final", '{"submission": true}', "must be an integer"),
    ("compile", '{"source": "x", "dsl": "cuda"}', "compile takes no argument 'dsl'; it takes source"),
    ("finish", '{"now": true}', "finish takes no argument 'now'"),
])
def test_bad_arguments_are_named(name, text, message):
    with pytest.raises(ToolError, match=message):
        parse_arguments(name, text)


def test_arguments_that_fit():
    assert parse_arguments("set_final", '{"submission": 2}') == {"submission": 2}
    assert parse_arguments("budget", None) == parse_arguments("finish", "") == {}


@pytest.fixture
def task(tmp_path):
    with mkb.Session(compile_only=True, dsl_a="cuda", dsl_b="cuda", problems=ROUTING, budget_submissions=2,
                     cache_dir=tmp_path / "cache", trials=f"{ROUTING}/cuda/solo_a/r0") as session:
        (task,) = session.next_tasks(1)
        with task:
            yield task


def test_compile_is_free_and_submit_counts(task):
    lines = []
    tools = Toolbox(task, lines.append)
    broken = tools.call("compile", json.dumps({"source": BROKEN}))
    assert broken.startswith("verdict: COMPILE_ERROR") and "submission:" not in broken
    compiled = tools.call("compile", json.dumps({"source": SOLUTION}))
    assert compiled.startswith("verdict: COMPILED") and "submission:" not in compiled
    assert task.submissions_left == 2 and tools.compiles == 2
    submitted = tools.call("submit", json.dumps({"source": SOLUTION}))
    assert "submission: 1\n" in submitted and "submissions left: 1;" in submitted
    assert task.submissions_left == 1 and tools.submissions == 1
    assert lines[1] == "compile: COMPILED" and lines[2].startswith("submit 1: COMPILED")
    budget = json.loads(tools.call("budget", "{}"))
    assert budget["submissions_left"] == 1 and budget["compile_checks_made"] == 2 and budget["submissions_made"] == 1
    assert budget["final"] == "not named" and tools.ended is None


def test_set_final_skill_and_finish(task):
    tools = Toolbox(task, lambda line: None)
    tools.call("submit", json.dumps({"source": SOLUTION}))
    assert tools.call("set_final", '{"submission": 1}') == "submission 1 is your final kernel" and tools.final_named
    assert tools.call("set_final", '{"submission": 0}') == "error: submission numbers start at 1, not 0"
    assert tools.call("set_final", '{"submission": 7}').startswith("error: MKB_ERR_NOT_FOUND")
    assert tools.call("keep_skill", '{"text": "fuse the top-2 into the softmax"}') == "skill kept (31 bytes)"
    assert tools.call("finish", "{}") == "the attempt ends now" and tools.ended == "finish"


def test_a_spent_budget_ends_the_attempt(task):
    tools = Toolbox(task, lambda line: None)
    for _ in range(2):
        tools.call("submit", json.dumps({"source": SOLUTION}))
    assert tools.ended is None
    spent = tools.call("submit", json.dumps({"source": SOLUTION}))
    assert spent.startswith("error: MKB_ERR_BUDGET") and spent.endswith("Your attempt has ended.")
    assert tools.ended == "budget spent"
