"""One attempt: the conversation with the model about one task, through its tools, to the final record."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Optional

import mkb

from .chat import Chat, ChatError, Interrupted, Retry
from .tools import TOOLS, Toolbox
from .transcript import Transcript
from .usage import Prices, usage_counts

SYSTEM = ("You are an expert GPU kernel engineer working on one task through tools. The task text names "
          "library calls; here they are tools: submit evaluates a kernel (mkb_submit_attempt) and costs one "
          "of your few submissions; compile checks that a kernel compiles (mkb_task_compile) and costs "
          "none; keep_skill replaces your skill (mkb_submit_skill); set_final names a submission as your "
          "final kernel (mkb_task_set_final_submission); budget says what is left; finish ends the attempt. "
          "Compile until your kernel compiles, then submit; keep your skill up to date after every "
          "submission; call finish when you cannot make your kernel faster.")
NUDGE = ("Continue by calling a tool: compile, submit, keep_skill, set_final, budget, or finish when you are "
         "done.")
CLOSING = ("No submissions are left. If you have not yet, update your skill with keep_skill and name your "
           "final kernel with set_final, then call finish.")


@dataclass
class Outcome:
    """How an attempt ended: why, its final record (None when an exception ended it), and the error
    that ended it, if one did."""
    reason: str
    final: Optional[mkb.Report] = None
    error: Optional[str] = None


def _assistant_message(message: dict) -> dict:
    """The reply as it goes back into the conversation: only the standard fields (some endpoints add
    their own, such as reasoning text, that others refuse to be sent back)."""
    if message.get("tool_calls"):
        return {"role": "assistant", "content": message.get("content"), "tool_calls": message["tool_calls"]}
    return {"role": "assistant", "content": message.get("content") or ""}  # null content needs tool calls


class Attempt:
    def __init__(self, chat: Chat, task: mkb.Task, transcript: Transcript, *, max_turns: int,
                 prices: Optional[Prices], log: Callable[[str], None]) -> None:
        self.chat, self.task, self.transcript, self.max_turns, self.prices = chat, task, transcript, max_turns, prices
        self.log = lambda line: log(f"{task.id}: {line}")
        self.tools = Toolbox(task, self.log)
        self.messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task.instruction}]
        self.sent = 0  # messages already sent in an earlier request

    def run(self) -> Outcome:
        """Talks until the model finishes, the budget is spent or max_turns is reached, then finalizes.
        A chat error ends the attempt the same way, with the error kept in the outcome. Interrupted
        (Ctrl-C) is raised through, the task left unfinished."""
        self.transcript.write("task", id=self.task.id, model=self.chat.model, arm=self.task.arm_name,
                              tools=TOOLS, max_turns=self.max_turns)
        error = None
        try:
            reason = self._converse()
        except Interrupted:
            self.transcript.write("interrupted")
            raise
        except ChatError as chat_error:
            reason, error = "chat error", str(chat_error)
            self.log(f"ended: {error}")
        final = self._finalize()
        self.transcript.write("end", reason=reason, error=error, final_verdict=final.verdict_name,
                              final_time_us=None if math.isnan(final.time_us) else final.time_us,
                              final_message=final.message)
        return Outcome(reason, final, error)

    def _converse(self) -> str:
        closing = False
        for turn in range(1, self.max_turns + 1):
            if self.chat.stop.is_set():
                raise Interrupted()
            if self.task.seconds_left <= 0:
                return "time spent"
            message = self._exchange(turn)
            self.messages.append(_assistant_message(message))
            for call in message.get("tool_calls") or []:
                self._run_tool(call)
            if self.tools.ended:
                return self.tools.ended
            if closing:
                return "budget spent"
            if self.task.submissions_left == 0:
                closing = True
                self.messages.append({"role": "user", "content": CLOSING})
            elif not message.get("tool_calls"):
                self.messages.append({"role": "user", "content": NUDGE})
        return "max turns"

    def _exchange(self, turn: int) -> dict:
        request = self.messages[self.sent:]
        self.sent = len(self.messages)

        def retried(retry: Retry) -> None:
            status = f"HTTP {retry.status}: " if retry.status else ""
            self.log(f"{status}{retry.error[:200]}; retry {retry.attempt}/{self.chat.max_retries} in {retry.wait_s:.1f} s")
            self.transcript.write("retry", turn=turn, attempt=retry.attempt, status=retry.status,
                                  error=retry.error, wait_s=retry.wait_s)

        started = time.monotonic()
        answer = self.chat.complete(self.messages, TOOLS, on_retry=retried)
        choice = answer["choices"][0]
        message = choice.get("message") or {}
        counts = usage_counts(answer.get("usage"))
        cost = self.prices.cost(counts) if self.prices else 0.0
        try:
            self.task.add_usage(counts.input, counts.output, cost, cached_input_tokens=min(counts.cached, counts.input))
        except mkb.StateError as error:  # the wall clock ended the attempt while the model was answering
            self.log(f"usage not recorded: {error}")
            self.tools.ended = "time spent"
        self.transcript.write("exchange", turn=turn, request=request, reply=message,
                              finish_reason=choice.get("finish_reason"), usage=answer.get("usage"),
                              counts=counts._asdict(), cost_usd=cost, seconds=round(time.monotonic() - started, 3))
        return message

    def _run_tool(self, call: dict) -> None:
        function = call.get("function") or {}
        name, arguments = function.get("name", ""), function.get("arguments")
        started = time.monotonic()
        result = self.tools.call(name, arguments)
        self.messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": result})
        self.transcript.write("tool", id=call.get("id"), name=name, arguments=arguments, result=result,
                              seconds=round(time.monotonic() - started, 3))

    def _finalize(self) -> mkb.Report:
        """Names the fastest passing submission final if the model named none, then ends the attempt."""
        if not self.tools.final_named and self.tools.fastest:
            try:
                self.task.set_final_submission(self.tools.fastest[1])
                self.log(f"named the fastest passing submission {self.tools.fastest[1]} final")
            except (mkb.BudgetError, mkb.StateError):
                pass  # the wall clock ended the attempt already; finalize hands out its record
        final = self.task.finalize()
        time_us = "" if math.isnan(final.time_us) else f" {final.time_us:.1f} us"
        self.log(f"final {final.verdict}{time_us}")
        return final
