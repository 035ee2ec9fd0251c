"""python3 -m mkb.mcp --ledger FILE [options]: serves one libmkb session over MCP (docs/MCP.md).
Exit status: 0 when the client went away or the server was stopped (SIGTERM, Ctrl-C), 1 when the
session cannot open or the MCP SDK is missing, 2 for a bad command line."""
from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager, nullcontext
from importlib import metadata
from typing import Iterator, Optional, Sequence

from . import cli

SDK = "mcp==2.3.0"


@contextmanager
def _std_streams_diverted() -> Iterator[None]:
    """Points fd 0 at /dev/null and fd 1 at stderr for the block, so that processes the session starts
    (the GPU workers) never read or write the stdio transport's pipes."""
    saved = [os.dup(0), os.dup(1)]
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in (*saved, null):
            os.close(fd)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _sdk_problem() -> Optional[str]:
    try:
        found = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        return f"the MCP Python SDK is not installed: pip install '{SDK}' (or the libmkb[mcp] extra)"
    if found != SDK.split("==")[1]:
        return f"this server is written for {SDK}, found mcp {found}: pip install '{SDK}'"
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = cli.parse(argv)
    problem = _sdk_problem()
    if problem:
        print(f"mkb.mcp: {problem}", file=sys.stderr)
        return 1
    import mkb

    from .server import build, serve
    try:
        with _std_streams_diverted() if args.http is None else nullcontext():
            session = mkb.Session(**cli.session_options(args))
    except mkb.MkbError as error:
        print(f"mkb.mcp: cannot open the session: {error}", file=sys.stderr)
        return 1
    server, board = build(session, args.max_open_tasks)
    # SIGTERM (what MCP clients send a server that outlives its stdin, and what stops an HTTP one)
    # ends serving as Ctrl-C does, so that the session is closed below.
    signal.signal(signal.SIGTERM, _stop)
    try:
        serve(server, args.http, args.host)
    except KeyboardInterrupt:
        pass
    finally:
        board.close(session.close)
    return 0


if __name__ == "__main__":
    sys.exit(main())
