"""The MCP server (python3 -m mkb.mcp) driven by the MCP SDK's own client over stdio, as an agent
framework drives it: a whole four-arm compile-only session, then the ledger it wrote; and tool errors,
which come back as error results while the server keeps serving. Skipped, with the reason, only when
the SDK is not importable (scripts/setup installs it)."""
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP Python SDK (mcp==2.3.0, .ci/mcp-requirements.txt) is not installed")
import anyio  # noqa: E402  (the SDK's dependency)
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import mkb  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ROUTING = "topk_softmax_routing_mixtral_8x7b_bf16"
PROBLEM = ROOT / "problems" / "extra" / ROUTING
ARMS = ["solo_a", "solo_b", "a2b_skill", "b2a_skill"]


def server(tmp_path: Path, worker, *extra: str) -> StdioServerParameters:
    """The server as a client configures it, on a compile-only session of one problem in cuda twice."""
    env = {name: os.environ[name] for name in ("MKB_LIB_PATH", "LD_LIBRARY_PATH", "MKB_PYTHON") if name in os.environ}
    env["PYTHONPATH"] = str(ROOT / "bindings" / "python")
    args = ["-m", "mkb.mcp", "--ledger", str(tmp_path / "run.ledger"), "--compile-only", "--dsl-a", "cuda",
            "--dsl-b", "cuda", "--problems", ROUTING, "--model", "mcp-test", "--cache-dir", str(tmp_path / "cache")]
    if worker:
        args += ["--worker", worker]
    return StdioServerParameters(command=sys.executable, args=[*args, *extra], env=env, cwd=str(tmp_path))


def run(body) -> None:
    anyio.run(body)


def solution() -> str:
    return (PROBLEM / "solutions" / "cuda.cu").read_text()


def broken() -> str:
    """The stored solution with one undeclared name: its launch plan parses, its code does not compile."""
    return solution() + "\n__device__ float broken_on_purpose() { return undeclared_name_here; }\n"


async def call(client: Client, tool: str, **arguments):
    result = await client.call_tool(tool, arguments)
    assert result.content and result.content[0].type == "text"
    return result


def test_a_whole_four_arm_session_over_stdio(tmp_path, worker, mkb_cli):
    played = {}

    async def body():
        async with Client(server(tmp_path, worker)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"next_task", "compile", "submit", "keep_skill", "set_final", "budget", "finish"}
            while True:
                taken = await call(client, "next_task")
                assert not taken.is_error, taken.content[0].text
                if taken.structured_content["done"]:
                    break
                task = taken.structured_content["task"]
                task_id = task["task_id"]
                assert task["problem"] == ROUTING and task["dsl"] == "cuda" and task["arm"] in ARMS
                assert task["budget_submissions"] == 10 and task["budget_seconds"] == 2400
                assert task_id in taken.content[0].text and task["instruction"] in taken.content[0].text
                assert (task["source_skill"] is not None) == task["arm"].endswith("_skill")
                # Every C function the instruction names is mapped onto a tool in the server's instructions.
                named = set(re.findall(r"\bmkb_\w+", task["instruction"]))
                assert named and named <= set(re.findall(r"\bmkb_\w+", client.instructions))
                if task["arm"] == "a2b_skill":  # receives what solo_a kept
                    assert f"skill of {ROUTING}/cuda/solo_a/r0" in task["source_skill"]

                failed = await call(client, "compile", task_id=task_id, source=broken())
                assert failed.is_error and failed.structured_content["verdict"] == "COMPILE_ERROR"
                assert "undeclared_name_here" in failed.content[0].text
                assert not failed.structured_content["counted"]
                compiled = await call(client, "compile", task_id=task_id, source=solution())
                assert not compiled.is_error, compiled.content[0].text
                assert compiled.structured_content["verdict"] == "COMPILED"
                assert compiled.structured_content["submissions_left"] == 10  # compile checks are free
                left = await call(client, "budget", task_id=task_id)
                assert left.structured_content["submissions_left"] == 10
                assert 0 < left.structured_content["seconds_left"] <= 2400

                submitted = await call(client, "submit", task_id=task_id, source=solution())
                assert not submitted.is_error, submitted.content[0].text
                report = submitted.structured_content
                assert report["verdict"] == "COMPILED" and report["counted"]
                assert report["submission"] == 1 and report["submissions_left"] == 9
                assert report["time_us"] is None  # nothing ran: null, not NaN

                kept = await call(client, "keep_skill", task_id=task_id, text=f"skill of {task_id}")
                assert not kept.is_error
                named = await call(client, "set_final", task_id=task_id, submission=1)
                assert not named.is_error
                final = await call(client, "finish", task_id=task_id)
                assert not final.is_error and final.structured_content["final"]
                assert "next_task" in final.content[0].text
                played[task["arm"]] = task
            # The texts stay readable after their tasks ended.
            task_id = played["solo_a"]["task_id"]
            reference = await client.read_resource(f"mkb://task/{task_id}/reference")
            assert reference.contents[0].text == (PROBLEM / "reference.md").read_text().strip() + "\n"
            instruction = await client.read_resource(f"mkb://task/{task_id}/instruction")
            assert instruction.contents[0].text == played["solo_a"]["instruction"]
            guide = await client.read_resource(f"mkb://task/{task_id}/guide")
            guide_path = played["solo_a"]["guide_path"]
            if guide_path:
                assert guide.contents[0].text == Path(guide_path).read_text()
            else:  # the DSL's submission notes, as the instruction quotes them
                assert guide.contents[0].text.startswith("## Submission format: `cuda`")
                assert guide.contents[0].text in played["solo_a"]["instruction"]

    run(body)
    assert sorted(played) == sorted(ARMS)

    records = [json.loads(line) for line in subprocess.run(
        [mkb_cli, "ledger", "dump", str(tmp_path / "run.ledger")], capture_output=True, text=True,
        check=True).stdout.splitlines()]
    by_type = {}
    for record in records:
        by_type.setdefault(record["body_type"], []).append(record["body"])
    assert sorted(b["trial"]["arm"] for b in by_type["TrialFinished"]) == sorted(ARMS)
    assert all(b["trial"]["model"] == "mcp-test" for b in by_type["TrialFinished"])
    assert all(b["final_kernel"] == "submission 1" for b in by_type["TrialFinished"])
    # One counted submission per attempt: the two compile checks before it took no submission number.
    assert sorted(b["trial"]["arm"] for b in by_type["SubmissionMade"]) == sorted(ARMS)
    assert all(b["index"] == 1 and b["counted"] for b in by_type["SubmissionMade"])
    # ... and were recorded as compile checks, the broken one first.
    checks = sorted((b["trial"]["arm"], b["index"], b["verdict"]) for b in by_type["CompileChecked"])
    assert checks == sorted((arm, i, v) for arm in ARMS for i, v in ((1, "compile_error"), (2, "compiled")))
    assert sorted(b["text"] for b in by_type["SkillUpdated"]) == sorted(
        f"skill of {ROUTING}/cuda/{arm}/r0" for arm in ARMS)
    scores = mkb.score_ledgers([str(tmp_path / "run.ledger")])
    assert {d["direction"] for d in scores["directions"]} == {"a_to_b", "b_to_a"}


def test_tool_errors_come_back_as_error_results_and_the_server_keeps_serving(tmp_path, worker):
    async def body():
        async with Client(server(tmp_path, worker, "--budget-source-bytes", "4000")) as client:
            unknown = await call(client, "submit", task_id="no/such/task/r0", source=solution())
            assert unknown.is_error and "no task 'no/such/task/r0'" in unknown.content[0].text
            none_yet = await call(client, "budget", task_id="no/such/task/r0")
            assert none_yet.is_error and "next_task" in none_yet.content[0].text

            task_id = (await call(client, "next_task")).structured_content["task"]["task_id"]
            second = await call(client, "next_task")
            assert second.is_error and f"{task_id} is still open" in second.content[0].text
            wrong_type = await client.call_tool("compile", {"task_id": task_id, "source": ["not", "text"]})
            assert wrong_type.is_error and "source" in wrong_type.content[0].text
            failed = await call(client, "submit", task_id=task_id, source=broken())
            assert failed.is_error and failed.structured_content["verdict"] == "COMPILE_ERROR"
            assert failed.structured_content["counted"]  # a submission that fails to compile counts
            too_large = await call(client, "submit", task_id=task_id, source="x" * 5000)
            assert too_large.is_error and too_large.structured_content["verdict"] == "REFUSED"
            assert not too_large.structured_content["counted"]
            no_such = await call(client, "set_final", task_id=task_id, submission=7)
            assert no_such.is_error and "MKB_ERR_NOT_FOUND" in no_such.content[0].text
            both = await call(client, "set_final", task_id=task_id, submission=1, source=solution())
            assert both.is_error and "exactly one" in both.content[0].text
            with pytest.raises(MCPError, match="no task 'no/such/task/r0'"):
                await client.read_resource("mkb://task/no/such/task/r0/guide")

            left = await call(client, "budget", task_id=task_id)  # still serving, the task still open
            assert not left.is_error and left.structured_content["submissions_left"] == 9
            final = await call(client, "finish", task_id=task_id)
            assert final.structured_content["verdict"] == "COMPILE_ERROR"  # the latest submission
            again = await call(client, "finish", task_id=task_id)
            assert again.is_error and "finished already" in again.content[0].text
            assert not (await call(client, "next_task")).is_error

    run(body)


def test_the_streamable_http_transport_on_loopback(tmp_path, worker):
    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = server(tmp_path, worker, "--http", str(port))
    process = subprocess.Popen([params.command, *params.args], env={**os.environ, **params.env}, cwd=params.cwd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        async def body():
            for _ in range(200):  # until it listens
                try:
                    await anyio.connect_tcp("127.0.0.1", port)
                    break
                except OSError:
                    assert process.poll() is None, process.stderr.read().decode()
                    await anyio.sleep(0.1)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                taken = await call(client, "next_task")
                assert taken.structured_content["task"]["problem"] == ROUTING
                task_id = taken.structured_content["task"]["task_id"]
                assert not (await call(client, "keep_skill", task_id=task_id, text="over HTTP")).is_error
                return task_id

        task_id = anyio.run(body)
    finally:
        process.terminate()
        stopped = process.wait(timeout=30)
    assert stopped == 0, process.stderr.read().decode()  # stopped cleanly: the session closed
    # The task left open is planned again when the ledger is resumed.
    plan = mkb.plan(ledger_path=str(tmp_path / "run.ledger"), dsl_a="cuda", dsl_b="cuda", problems=ROUTING,
                    model="mcp-test")
    assert {t["id"]: t["state"] for t in plan["trials"]}[task_id] == "interrupted"


def test_a_session_that_cannot_open_exits_1_with_the_library_message(tmp_path, worker):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bindings" / "python")}
    args = [sys.executable, "-m", "mkb.mcp", "--ledger", str(tmp_path / "run.ledger"), "--problems", "no_such_problem_*"]
    done = subprocess.run(args + (["--worker", worker] if worker else []), env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1
    assert "cannot open the session: MKB_ERR_NOT_FOUND" in done.stderr and "no_such_problem_*" in done.stderr
    assert done.stdout == ""  # nothing on the transport
