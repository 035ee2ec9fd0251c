"""The MCP server over one session: its tools and resources, what it tells the model first, and how it
serves (stdio, or streamable HTTP)."""
from __future__ import annotations

from typing import Optional

from mcp.server import MCPServer

import mkb

from . import resources, tools
from .board import Board

INSTRUCTIONS = """\
A MetaKernelBench session (libmkb): you write fast GPU kernels for the tasks it hands out.
Work a task like this: next_task, then read its instruction (and the resources mkb://task/<id>/guide and
mkb://task/<id>/reference), write a kernel, compile it (free) until it compiles, submit it (spends one of
the task's submissions), improve it, keep your skill up to date with keep_skill, name your best kernel
with set_final, then finish; then next_task again until it says done. The task's wall clock runs from
next_task to finish, through compiles and submissions alike; budget says what is left.
The instruction names the library's C functions; here they are tools: mkb_task_compile is compile,
mkb_submit_attempt is submit, mkb_submit_skill is keep_skill, mkb_task_set_final and
mkb_task_set_final_submission are set_final (with source or with submission), mkb_task_submissions_left
and mkb_task_seconds_left are budget, mkb_finalize is finish."""


def build(session: mkb.Session, max_open: int) -> tuple[MCPServer, Board]:
    """The server and the board of tasks it takes from `session` (at most `max_open` open at once)."""
    server = MCPServer("mkb", title="MetaKernelBench (libmkb)", version=mkb.version(), instructions=INSTRUCTIONS,
                       log_level="WARNING")
    board = Board(session, max_open)
    tools.register(server, board, max_open)
    resources.register(server, board)
    return server, board


def serve(server: MCPServer, http_port: Optional[int], host: str) -> None:
    """Serves until the client goes away (stdio) or the process is stopped (HTTP). On a loopback host the
    SDK refuses other Host and Origin headers (DNS rebinding)."""
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=http_port)
