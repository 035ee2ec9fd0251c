"""Each handed-out task's texts as MCP resources: its instruction, its DSL guide and its problem's
reference. They stay readable after the task ends."""
from __future__ import annotations

from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from . import sections
from .board import Board, BoardError, Entry


def _entry(board: Board, task_id: str) -> Entry:
    try:
        return board.known(task_id)
    except BoardError as error:
        raise ResourceNotFoundError(str(error)) from error


def guide(entry: Entry) -> str:
    """The DSL guide the library wrote for the task (the task JSON's guide_path) when it names one, else
    the DSL's submission notes as the instruction quotes them."""
    path = entry.json.get("guide_path")
    if path:
        try:
            return Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise ResourceError(f"cannot read the guide of {entry.id} at {path}: {error.strerror}") from error
    return sections.dsl_notes(entry.instruction)


def register(server: MCPServer, board: Board) -> None:
    """Adds the task resources to `server`, reading `board`'s tasks."""

    @server.resource("mkb://task/{+task_id}/instruction", mime_type="text/markdown",
                     description="Everything the agent is told about a task (next_task returns it too): what to "
                                 "compute, inputs and outputs, how to submit, grading, budget, the skill.")
    def instruction(task_id: str) -> str:
        return _entry(board, task_id).instruction

    @server.resource("mkb://task/{+task_id}/guide", mime_type="text/markdown",
                     description="The guide to the task's kernel DSL: the library's guide file when the task "
                                 "names one (guide_path), else the DSL's submission notes.")
    def dsl_guide(task_id: str) -> str:
        try:
            return guide(_entry(board, task_id))
        except ValueError as error:
            raise ResourceError(str(error)) from error

    @server.resource("mkb://task/{+task_id}/reference", mime_type="text/markdown",
                     description="The problem's reference: the exact computation, with every rounding point, "
                                 "that a kernel must reproduce.")
    def reference(task_id: str) -> str:
        try:
            return sections.reference(_entry(board, task_id).instruction)
        except ValueError as error:
            raise ResourceError(str(error)) from error
