"""An MCP (Model Context Protocol) server over a libmkb session: `python3 -m mkb.mcp --ledger FILE`.

Agent frameworks plug it in as a stdio server (or streamable HTTP with --http PORT); docs/MCP.md says
what it serves. It needs the MCP Python SDK, pinned as the `mcp` extra: pip install 'libmkb[mcp]'.
Importing this package needs nothing beyond mkb; its modules import the SDK."""
