"""The tools the model calls (OpenAI function calling), and what each does to the task."""
from __future__ import annotations

import json
import math
from typing import Callable, Optional

import mkb


def _tool(name: str, description: str, **properties: dict) -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}}}


_SOURCE = {"type": "string", "description": "the complete submission, in the task's DSL and submission format"}

TOOLS = [
    _tool("compile", "Compile-check a complete submission for free: the DSL frontend and the compiler run and the "
          "launch plan is checked against the compiled code, but nothing is run, timed or graded. Costs no "
          "submission (the wall clock keeps running). Use it until your kernel compiles, then submit it.",
          source=_SOURCE),
    _tool("submit", "Evaluate a complete submission: it is compiled, checked on fresh random inputs and timed "
          "against the unfused baseline. Each submission that enters evaluation COSTS ONE of your few "
          "submissions (one refused before evaluation costs none). Returns the verdict, the feedback, the time "
          "and speedup, and the submission's number.", source=_SOURCE),
    _tool("keep_skill", "Replace your skill: the short plain-language note, described in the task, that is handed "
          "to a fresh attempt at this problem in another DSL. Keep it up to date after every submission; the "
          "text present when your attempt ends is what counts. Free.",
          text={"type": "string", "description": "the whole skill text (it replaces the previous one)"}),
    _tool("set_final", "Name one of your submissions (its number from submit) as your final kernel, the one "
          "graded when the attempt ends. Free. Without it your fastest passing submission is graded, else "
          "your latest one.", submission={"type": "integer", "description": "a number that submit returned"}),
    _tool("budget", "Submissions and wall-clock seconds left, what you have used, your fastest passing "
          "submission and your final choice. Free."),
    _tool("finish", "End the attempt now: your final kernel is evaluated once more on fresh inputs and that is "
          "your result; your skill as it stands is kept. Call it when you cannot improve your kernel further."),
]

_ARGUMENTS = {tool["function"]["name"]: tool["function"]["parameters"]["properties"] for tool in TOOLS}


class ToolError(Exception):
    """A tool call the model got wrong; its text goes back to the model."""


def parse_arguments(name: str, text: Optional[str]) -> dict:
    """The checked arguments of a call to `name`, or ToolError naming what is wrong."""
    if name not in _ARGUMENTS:
        raise ToolError(f"there is no tool {name!r}; the tools are {', '.join(_ARGUMENTS)}")
    try:
        arguments = json.loads(text or "{}")
    except ValueError as error:
        raise ToolError(f"the arguments of {name} are not valid JSON ({error})") from None
    if not isinstance(arguments, dict):
        raise ToolError(f"the arguments of {name} must be a JSON object")
    expected = _ARGUMENTS[name]
    for key in arguments:
        if key not in expected:
            raise ToolError(f"{name} takes no argument {key!r}" + (f"; it takes {', '.join(expected)}" if expected else ""))
    for key, schema in expected.items():
        if key not in arguments:
            raise ToolError(f"{name} needs the argument {key!r}")
        kind = str if schema["type"] == "string" else int
        if not isinstance(arguments[key], kind) or isinstance(arguments[key], bool):
            raise ToolError(f"the argument {key!r} of {name} must be {'a string' if kind is str else 'an integer'}")
    return arguments


def _time(report: mkb.Report) -> str:
    return "" if math.isnan(report.time_us) else f"{report.time_us:.1f} us"


class Toolbox:
    """Runs the tools on one task and keeps what the attempt needs to know: whether it should end, the
    fastest passing submission, whether the model named a final kernel."""

    def __init__(self, task: mkb.Task, log: Callable[[str], None]) -> None:
        self.task, self.log = task, log
        self.ended: Optional[str] = None  # why the attempt should end: "finish", "budget spent", ...
        self.fastest: Optional[tuple[float, int]] = None  # (time_us, submission) of the fastest pass
        self.final_named = False
        self.compiles = self.submissions = 0

    def call(self, name: str, arguments_text: Optional[str]) -> str:
        """The result text of one call for the model. Budget and state errors end the attempt."""
        try:
            arguments = parse_arguments(name, arguments_text)
            return getattr(self, "_" + name)(**arguments)
        except ToolError as error:
            return f"error: {error}"
        except (mkb.BudgetError, mkb.StateError) as error:
            self.ended = "budget spent"
            self.log(f"{name}: {error}")
            return f"error: {error}. Your attempt has ended."
        except mkb.MkbError as error:  # a source or skill over its size limit, infrastructure: say what
            self.log(f"{name}: {error}")
            return f"error: {error}"

    def _report_text(self, report: mkb.Report) -> str:
        head = f"verdict: {report.verdict}"
        if report.submission:
            head += f"\nsubmission: {report.submission}" + ("" if report.counted else " (refused: not counted)")
        return (f"{head}\nsubmissions left: {report.submissions_left}; seconds left: {report.seconds_left:.0f}"
                f"\n\n{report.message}")

    def _compile(self, source: str) -> str:
        report = self.task.compile(source)
        self.compiles += 1
        self.log(f"compile: {report.verdict}")
        return self._report_text(report)

    def _submit(self, source: str) -> str:
        report = self.task.submit(source)
        self.submissions += report.counted
        self.log(f"submit {report.submission}: {report.verdict} {_time(report)}".rstrip())
        if report.passed and (self.fastest is None or report.time_us < self.fastest[0]):
            self.fastest = (report.time_us, report.submission)
        return self._report_text(report)

    def _keep_skill(self, text: str) -> str:
        self.task.submit_skill(text)
        return f"skill kept ({len(text.encode())} bytes)"

    def _set_final(self, submission: int) -> str:
        if submission < 1:
            raise ToolError(f"submission numbers start at 1, not {submission}")
        self.task.set_final_submission(submission)
        self.final_named = True
        self.log(f"set_final {submission}")
        return f"submission {submission} is your final kernel"

    def _budget(self) -> str:
        fastest = (f"submission {self.fastest[1]} ({self.fastest[0]:.1f} us)" if self.fastest else "none")
        return json.dumps({"submissions_left": self.task.submissions_left,
                           "seconds_left": round(self.task.seconds_left),
                           "submissions_made": self.submissions, "compile_checks_made": self.compiles,
                           "fastest_passing": fastest,
                           "final": "named by you" if self.final_named else "not named"})

    def _finish(self) -> str:
        self.ended = "finish"
        return "the attempt ends now"
