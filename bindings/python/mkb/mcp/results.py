"""What the tools return: a text for the model to read, and the same as structured content (with a
published output schema) for programs. Figures that were not measured (NaN in a Report) are null."""
from __future__ import annotations

import math
from typing import Optional

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

import mkb

from .board import Entry


class TaskResources(BaseModel):
    """The task's texts as MCP resources."""

    instruction: str
    guide: str
    reference: str


class TaskInfo(BaseModel):
    """A task as next_task hands it out."""

    task_id: str
    problem: str
    family: str
    dsl: str
    arm: str
    replicate: int
    budget_submissions: int
    budget_seconds: int
    source_bytes: int
    skill_bytes: int
    instruction: str
    guide_path: Optional[str]
    source_skill: Optional[str]
    resources: TaskResources


class NextTask(BaseModel):
    """next_task's result: a task, or done when every task of the session has been handed out."""

    done: bool
    task: Optional[TaskInfo]


class ReportInfo(BaseModel):
    """An evaluation (a compile check, a submission or the final one) as the library reported it."""

    verdict: str
    counted: bool
    final: bool
    submission: int
    submissions_left: int
    seconds_left: float
    time_us: Optional[float]
    speedup: Optional[float]
    speedup_vs_eager: Optional[float]
    message: str


class Budget(BaseModel):
    """What is left of an open task's budget."""

    submissions_left: int
    seconds_left: float


class Done(BaseModel):
    """The result of a tool that only records (keep_skill, set_final)."""

    task_id: str
    message: str


def _measured(value: float) -> Optional[float]:
    return None if math.isnan(value) else value


def result(text: str, structured: BaseModel, failed: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=structured.model_dump(mode="json"), is_error=failed)


def task_result(entry: Entry) -> CallToolResult:
    budget = entry.json["budget"]
    uri = f"mkb://task/{entry.id}"
    info = TaskInfo(task_id=entry.id, problem=entry.problem, family=entry.family, dsl=entry.dsl, arm=entry.arm,
                    replicate=entry.replicate, budget_submissions=budget["submissions"],
                    budget_seconds=budget["seconds"], source_bytes=budget["source_bytes"],
                    skill_bytes=budget["skill_bytes"], instruction=entry.instruction,
                    guide_path=entry.json.get("guide_path"), source_skill=entry.source_skill,
                    resources=TaskResources(instruction=f"{uri}/instruction", guide=f"{uri}/guide",
                                            reference=f"{uri}/reference"))
    guide = f"the file {info.guide_path}, also" if info.guide_path else "the DSL's submission notes,"
    skill = ("\nThe instruction's last section holds the skill an earlier attempt in another DSL left for you."
             if entry.source_skill is not None else "")
    text = (f"Task id: {entry.id} (pass it to every tool)\n"
            f"Problem {entry.problem}, written in {entry.dsl}; arm {entry.arm}, replicate {entry.replicate}.\n"
            f"Budget: {info.budget_submissions} counted submissions and {info.budget_seconds} s of wall clock, "
            f"running from now until you call finish. compile is free but its time counts.\n"
            f"Guide: {guide} at {info.resources.guide}; reference: {info.resources.reference}.{skill}\n\n"
            f"{entry.instruction}")
    return result(text, NextTask(done=False, task=info))


def done_result() -> CallToolResult:
    return result("No task left: every task of this session has been handed out and none is waiting. "
                  "The session is complete.", NextTask(done=True, task=None))


def report_result(report: mkb.Report, note: str = "", passes: tuple[mkb.Verdict, ...] = ()) -> CallToolResult:
    """The report as the text the library wrote for the agent, and its figures. With `passes`, a verdict
    outside them marks the result an error (isError): the kernel did not get through the step."""
    info = ReportInfo(verdict=report.verdict.name, counted=report.counted, final=report.final,
                      submission=report.submission, submissions_left=report.submissions_left,
                      seconds_left=report.seconds_left, time_us=_measured(report.time_us),
                      speedup=_measured(report.speedup), speedup_vs_eager=_measured(report.speedup_vs_eager),
                      message=report.message)
    return result(report.message + note, info, failed=bool(passes) and report.verdict not in passes)
