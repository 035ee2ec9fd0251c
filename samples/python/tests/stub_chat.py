"""A chat endpoint on loopback for the LLM agent's tests: a function of each request body decides the
answer (status, headers, JSON). Requests are served in parallel threads, as a real endpoint would."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

Answer = tuple[int, dict, Optional[dict]]  # status, headers, JSON body (None: empty)


def completion(message: dict, usage: Optional[dict] = None, finish_reason: str = "tool_calls") -> dict:
    """A chat completion holding one choice."""
    answer = {"id": "stub", "object": "chat.completion",
              "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}]}
    if usage is not None:
        answer["usage"] = usage
    return answer


def tool_calls(prefix: str, *calls: tuple[str, dict]) -> dict:
    """An assistant message calling tools; the ids are prefix-0, prefix-1, ..."""
    return {"content": None, "tool_calls": [
        {"id": f"{prefix}-{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for i, (name, arguments) in enumerate(calls)]}


class StubServer:
    """Serves `respond(body)` at <url>/chat/completions; `log` keeps (arrival time, body, status)."""

    def __init__(self, respond: Callable[[dict], Answer]) -> None:
        self.respond = respond
        self.log: list[tuple[float, dict, int]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                arrived = time.monotonic()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path == "/v1/chat/completions", self.path
                assert self.headers["Authorization"] == "Bearer secret"
                status, headers, payload = stub.respond(body)
                with stub.lock:
                    stub.log.append((arrived, body, status))
                data = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away (a test killed it)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
