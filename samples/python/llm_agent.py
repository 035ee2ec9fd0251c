#!/usr/bin/env python3
"""An LLM agent for any OpenAI-compatible chat endpoint, using only the standard library.

For each task: the instruction goes in; the model answers with a kernel in a ``` block (and, in solo
attempts, a skill in a ```skill block); the kernel is submitted and the feedback goes back in; this
repeats until the kernel passes and the model says DONE, or the budget runs out. Usage reported by
the endpoint is recorded with the task.

Environment: MKB_LLM_BASE_URL (e.g. https://api.openai.com/v1), MKB_LLM_MODEL, MKB_LLM_API_KEY.

    python3 samples/python/llm_agent.py --ledger run.ledger [--problems GLOBS] [--rounds 10]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("MKB_LIB_PATH", str(ROOT / "build" / "lib"))

import mkb  # noqa: E402

SYSTEM = ("You are an expert GPU kernel engineer. Answer with the complete submission in one fenced code "
          "block. In solo attempts, also keep a skill up to date in a block fenced as ```skill. When your "
          "kernel passed and you cannot make it faster, answer DONE.")


class Chat:
    def __init__(self, base_url: str, model: str, api_key: str, timeout: float = 600) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout = model, api_key, timeout

    def complete(self, messages: list[dict]) -> tuple[str, dict]:
        body = json.dumps({"model": self.model, "messages": messages}).encode()
        request = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            answer = json.load(response)
        return answer["choices"][0]["message"]["content"], answer.get("usage", {})


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a reply as (language, body)."""
    return re.findall(r"```([\w+-]*)\n(.*?)```", text, re.DOTALL)


def attempt(chat: Chat, task: mkb.Task, rounds: int, log=print) -> mkb.Report:
    solo = task.arm in (mkb.Arm.SOLO_A, mkb.Arm.SOLO_B)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task.instruction}]
    passed = False
    for _ in range(rounds):
        reply, usage = chat.complete(messages)
        task.add_usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), 0.0)
        messages.append({"role": "assistant", "content": reply})
        found = blocks(reply)
        skill = [body for language, body in found if language == "skill"]
        if solo and skill:
            task.submit_skill(skill[-1].strip())
        kernels = [body for language, body in found if language != "skill"]
        if not kernels:
            if passed and "DONE" in reply:
                break
            messages.append({"role": "user", "content": "Please answer with the complete submission in a code block."})
            continue
        try:
            report = task.submit(kernels[-1])
        except mkb.BudgetError as error:
            log(f"{task.id}: {error}")
            break
        passed |= report.passed
        log(f"{task.id}: {report.verdict.name} {'' if report.time_us != report.time_us else f'{report.time_us:.1f} us'}")
        messages.append({"role": "user", "content": report.message})
    return task.finalize()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--problems", default=None)
    parser.add_argument("--dsl-a", default=None)
    parser.add_argument("--dsl-b", default=None)
    parser.add_argument("--rounds", type=int, default=10, help="model turns per attempt at most")
    parser.add_argument("--worker", default=None)
    args = parser.parse_args()
    chat = Chat(os.environ["MKB_LLM_BASE_URL"], os.environ["MKB_LLM_MODEL"], os.environ.get("MKB_LLM_API_KEY", ""))
    with mkb.Session(ledger_path=args.ledger, model=chat.model, problems=args.problems, dsl_a=args.dsl_a,
                     dsl_b=args.dsl_b, worker_path=args.worker) as session:
        for task in session.tasks(wait_ms=1000):
            with task:
                final = attempt(chat, task, args.rounds)
                print(f"{task.id}: final {final.verdict.name}", flush=True)
        print(session.score(table=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
