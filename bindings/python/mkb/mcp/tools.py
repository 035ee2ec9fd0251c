"""The tools an agent works a task with. Their names, descriptions and parameter docs are what the
model reads, so they say what each call costs: a submission spends one of the task's submissions, a
compile check spends none, and every call on a task happens on its running wall clock."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Annotated, Iterator, Optional

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

import mkb

from . import results
from .board import Board, BoardError

TaskId = Annotated[str, Field(description="The task's id as next_task returned it, such as "
                                          "'fused_add_rmsnorm_h4096_llama31_8b_bf16/cuda/solo_a/r0'.")]
Source = Annotated[str, Field(description="The whole kernel source in the task's DSL, launch plan included, as the "
                                          "instruction's 'How to submit' section describes.")]
SkillText = Annotated[str, Field(description="The whole skill text; it replaces the previous one ('' clears it).")]
SubmissionNumber = Annotated[Optional[int], Field(ge=1, description="The number of one of your earlier submissions that "
                                                              "entered evaluation (its report's 'submission').")]
FinalSource = Annotated[Optional[str], Field(description="A kernel source to grade as final instead, as it is; one "
                                                         "that cannot enter evaluation fails the attempt.")]


# A submission's success: PASSED, or COMPILED where a compile-only session runs nothing.
SUBMIT_PASSES = (mkb.Verdict.PASSED, mkb.Verdict.COMPILED)


@contextmanager
def _as_tool_errors() -> Iterator[None]:
    """The library's and the board's refusals become tool errors (isError results) with their text."""
    try:
        yield
    except (mkb.MkbError, BoardError) as error:
        raise ToolError(str(error)) from error


def register(server: MCPServer, board: Board, max_open: int) -> None:
    """Adds the task tools to `server`, working on `board`'s tasks."""

    @server.tool(description=(
        "Take the next benchmark task and start its clock. Returns the task id (pass it to every other tool), "
        "the problem, the kernel DSL to write in, the arm, the budget and the whole instruction: what to compute, "
        "the inputs and outputs, how to submit, how you are graded, and what your skill should say. The task's "
        "wall-clock budget starts now and runs until you call finish. "
        f"At most {max_open} task(s) may be open at once: finish the open one before taking another. When every "
        "task has been handed out the result says done."))
    def next_task() -> Annotated[CallToolResult, results.NextTask]:
        with _as_tool_errors():
            entry = board.take()
        return results.task_result(entry) if entry is not None else results.done_result()

    @server.tool(description=(
        "Check that a kernel compiles, for free: it is compiled exactly as a submission would be (the DSL's "
        "frontend, then NVRTC) and its launch plan is checked against the compiled code, but nothing runs. "
        "Spends NO submission; the seconds it takes to compile do count against the task's wall clock. Returns "
        "COMPILED, or (as an error result) COMPILE_ERROR, LAUNCH_ERROR or REFUSED with the compiler's messages, and "
        "the budget left. "
        "Fix compile errors here before you submit: a submission that fails to compile still spends one."))
    def compile(task_id: TaskId, source: Source) -> Annotated[CallToolResult, results.ReportInfo]:
        with _as_tool_errors(), board.open_task(task_id) as task:
            report = task.compile(source)
        return results.report_result(report, passes=(mkb.Verdict.COMPILED,))

    @server.tool(description=(
        "Submit a kernel for grading: it is compiled, checked for correctness on fresh random inputs against a "
        "float64 reference, and timed against the unfused baseline. SPENDS ONE of the task's counted submissions "
        "(see budget), even when the kernel fails to compile or is wrong; only a submission that cannot enter "
        "evaluation at all (REFUSED: empty, too large, no parsable launch plan) is free. Blocks while it is "
        "evaluated (seconds to minutes of the task's clock). Returns the verdict (an error result unless PASSED), "
        "the time and speedups, the first mismatch when wrong, the submission's number (for set_final), and "
        "the submissions and seconds left. Fails once the budget is spent: then call finish."))
    def submit(task_id: TaskId, source: Source) -> Annotated[CallToolResult, results.ReportInfo]:
        with _as_tool_errors(), board.open_task(task_id) as task:
            report = task.submit(source)
        return results.report_result(report, passes=SUBMIT_PASSES)

    @server.tool(description=(
        "Replace the task's skill: a short note in plain language that would help a fresh attempt at this same "
        "problem in a different kernel DSL (what the problem really asks, what limits speed, what worked and "
        "what did not, with the numbers you measured; no code). Free and instant; call it whenever you learn "
        "something. The text present when the task ends is what is kept."))
    def keep_skill(task_id: TaskId, text: SkillText) -> Annotated[CallToolResult, results.Done]:
        with _as_tool_errors(), board.open_task(task_id) as task:
            task.submit_skill(text)
        note = f"Skill of {task_id} replaced ({len(text.encode())} bytes)."
        return results.result(note, results.Done(task_id=task_id, message=note))

    @server.tool(description=(
        "Name the task's final kernel, free (no submission spent): give either `submission`, the number of one "
        "of your earlier submissions that entered evaluation, or `source`, a kernel to be graded as it is. "
        "The last call wins. Without one, your latest submission that entered evaluation is final. When the "
        "task ends the final kernel is evaluated once more, and that evaluation is your result: keep your best "
        "working kernel named final."))
    def set_final(task_id: TaskId, submission: SubmissionNumber = None,
                  source: FinalSource = None) -> Annotated[CallToolResult, results.Done]:
        if (submission is None) == (source is None):
            raise ToolError("give exactly one of submission (an earlier submission's number) and source")
        with _as_tool_errors(), board.open_task(task_id) as task:
            if submission is not None:
                task.set_final_submission(submission)
            else:
                task.set_final(source)
        note = (f"Submission {submission} of {task_id} is named final." if submission is not None
                else f"The given source ({len(source.encode())} bytes) is named final for {task_id}.")
        return results.result(note, results.Done(task_id=task_id, message=note))

    @server.tool(annotations=ToolAnnotations(read_only_hint=True), description=(
        "What is left of an open task's budget: counted submissions, and seconds of wall clock before the task "
        "ends on its own (it is then graded as finish would). Free and instant."))
    def budget(task_id: TaskId) -> Annotated[CallToolResult, results.Budget]:
        with _as_tool_errors(), board.open_task(task_id) as task:
            left = results.Budget(submissions_left=task.submissions_left, seconds_left=task.seconds_left)
        text = f"{task_id}: {left.submissions_left} submissions left, {left.seconds_left:.0f} s left."
        return results.result(text, left)

    @server.tool(description=(
        "End the task: its final kernel (named with set_final, else your latest submission that entered "
        "evaluation) is evaluated once more on fresh inputs, and that evaluation is the task's record. Update "
        "your skill with keep_skill first: it is frozen now. The task closes; call next_task for the next one. "
        "Returns the final report."))
    def finish(task_id: TaskId) -> Annotated[CallToolResult, results.ReportInfo]:
        with _as_tool_errors():
            report = board.finish(task_id)
        return results.report_result(report, "Task closed; call next_task for the next one.\n")
