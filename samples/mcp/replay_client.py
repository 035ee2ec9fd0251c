#!/usr/bin/env python3
"""Plays the suite's stored solutions through the MCP server, as an agent framework would drive it: the
server is started over stdio with the SDK's client, and each task is taken, its stored solution
compiled (free), submitted, a skill kept on solo arms, and finished. Then the session's scores.

    python3 samples/mcp/replay_client.py --ledger FILE [server options, e.g. --dsl-a cute-dsl --dsl-b tirx
                                                         --problems ID,ID --compile-only]

Everything after --ledger is passed to `python3 -m mkb.mcp` unchanged (its --help lists it)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("MKB_LIB_PATH", str(ROOT / "build" / "lib"))

import mkb  # noqa: E402


def stored_solution(family: str, problem: str, dsl: str) -> str | None:
    folder = ROOT / "problems" / family / problem
    listed = {s["dsl"]: s["file"] for s in json.loads((folder / "spec.json").read_text()).get("solutions", [])}
    return (folder / listed[dsl]).read_text() if dsl in listed else None


def figures(report: dict) -> str:
    if report["time_us"] is None:
        return report["verdict"].lower()
    vs_eager = report["speedup_vs_eager"]
    eager = f"{vs_eager:.2f}x eager, " if vs_eager is not None else ""
    return f"{report['verdict'].lower()}, {report['time_us']:.1f} us, {eager}{report['speedup']:.2f}x the baseline"


async def play(client: Client, task: dict) -> str:
    task_id = task["task_id"]
    source = stored_solution(task["family"], task["problem"], task["dsl"])
    if source is None:
        await client.call_tool("finish", {"task_id": task_id})
        return f"{task_id}: no stored solution in {task['dsl']}; finished without a kernel"
    compiled = (await client.call_tool("compile", {"task_id": task_id, "source": source})).structured_content
    submitted = (await client.call_tool("submit", {"task_id": task_id, "source": source})).structured_content
    if task["arm"].startswith("solo"):
        skill = (f"Problem {task['problem']} in {task['dsl']}: the fused single pass gave {figures(submitted)}. "
                 "Keep rows in registers between reduction and output; respect every rounding point.")
        await client.call_tool("keep_skill", {"task_id": task_id, "text": skill})
    final = (await client.call_tool("finish", {"task_id": task_id})).structured_content
    return (f"{task_id}: compile check {compiled['verdict'].lower()} (counted: {compiled['counted']}); "
            f"submission {figures(submitted)}; final {figures(final)}")


async def replay(ledger: str, server_args: list[str]) -> None:
    # The binding first, then whatever the caller's path holds (the SDK and the DSLs may live there).
    path = [str(ROOT / "bindings" / "python"), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    params = StdioServerParameters(command=sys.executable, args=["-m", "mkb.mcp", "--ledger", ledger, *server_args],
                                   env=env)
    async with Client(params) as client:
        while True:
            taken = (await client.call_tool("next_task", {})).structured_content
            if taken["done"]:
                break
            print(await play(client, taken["task"]), flush=True)


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] != "--ledger":
        print(__doc__, file=sys.stderr)
        return 2
    ledger, server_args = sys.argv[2], sys.argv[3:]
    anyio.run(replay, ledger, server_args)
    print()
    print(mkb.score_ledgers([ledger], table=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
