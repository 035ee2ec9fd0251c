#!/usr/bin/env python3
"""An LLM agent for any OpenAI-compatible chat endpoint, using only the standard library.

For each task: the instruction goes in; the model answers with a kernel in a ``` block and a skill in
a ```skill block (every arm keeps one); the kernel is submitted and the feedback goes back in; this
repeats until the kernel passes and the model says DONE, or the budget runs out. The fastest passing
kernel is named final, so a slower later try does not replace it. Usage reported by the endpoint,
prompt-cache tokens included, is recorded with the task.

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
          "block, and keep your skill up to date in a block fenced as ```skill. Your fastest passing "
          "kernel is kept as your final kernel. When your kernel passed and you cannot make it faster, "
          "answer DONE.")


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
        return answer["choices"][0]["message"]["content"], answer.get("usage") or {}


def usage_counts(usage: dict) -> tuple[int, int, int]:
    """(input, cached input, output) tokens of one reply's usage. OpenAI-style usage counts every
    prompt token in prompt_tokens, the cached part in prompt_tokens_details.cached_tokens;
    Anthropic-style usage counts cache reads and writes apart from input_tokens, so they are added."""
    if "prompt_tokens" in usage:
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        return usage["prompt_tokens"], cached, usage.get("completion_tokens", 0)
    cache_read = usage.get("cache_read_input_tokens") or 0
    cache_written = usage.get("cache_creation_input_tokens") or 0
    prompt = usage.get("input_tokens", 0) + cache_read + cache_written
    return prompt, cache_read, usage.get("output_tokens", 0)


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a reply as (language, body)."""
    return re.findall(r"```([\w+-]*)\n(.*?)```", text, re.DOTALL)


def attempt(chat: Chat, task: mkb.Task, rounds: int, log=print) -> mkb.Report:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task.instruction}]
    passed = False
    best_us = float("inf")
    for _ in range(rounds):
        reply, usage = chat.complete(messages)
        prompt, cached, output = usage_counts(usage)
        task.add_usage(prompt, output, 0.0, cached_input_tokens=cached)
        messages.append({"role": "assistant", "content": reply})
        found = blocks(reply)
        skill = [body for language, body in found if language == "skill"]
        if skill:
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
        log(f"{task.id}: {report.verdict} {'' if report.time_us != report.time_us else f'{report.time_us:.1f} us'}")
        if report.passed and report.time_us < best_us:
            best_us = report.time_us
            try:
                task.set_final_submission(report.submission)  # a slower later try does not replace it
            except mkb.BudgetError as error:  # the wall clock ran out: the attempt has ended
                log(f"{task.id}: {error}")
                break
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
                print(f"{task.id}: final {final.verdict}", flush=True)
        print(session.score(table=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
