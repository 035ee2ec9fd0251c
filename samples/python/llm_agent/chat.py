"""A client for an OpenAI-compatible /chat/completions endpoint that retries what retrying can fix.

Transient failures (HTTP 408, 429, 500, 502, 503, 504, 529; timeouts; refused, reset or dropped
connections; a reply that is not a chat completion) are retried up to max_retries times, waiting what
the server asks in Retry-After (or retry-after-ms), else an exponential backoff with full jitter. Any
other HTTP status (400, 401, 403, 404, ...) is permanent: retrying would get the same answer.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Callable, Optional

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})
RETRY_AFTER_CAP_S = 900.0  # a server asking for longer is not waited for beyond this


class ChatError(Exception):
    """The endpoint gave no usable reply: a permanent error, or transient ones beyond max_retries."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


class Interrupted(Exception):
    """The run is stopping (Ctrl-C): no more requests are made."""


@dataclass
class Retry:
    """One failed try that will be tried again: what failed and how long is waited first."""
    attempt: int  # 1 for the first retry
    error: str
    status: Optional[int]
    wait_s: float


class _Failure(Exception):
    def __init__(self, message: str, status: Optional[int] = None, transient: bool = True,
                 retry_after: Optional[float] = None) -> None:
        super().__init__(message)
        self.status, self.transient, self.retry_after = status, transient, retry_after


def retry_after_seconds(headers) -> Optional[float]:
    """The wait a response asks for: retry-after-ms, else Retry-After as seconds or an HTTP date."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_text(body: bytes) -> str:
    """The error message of an error response: OpenAI's {"error": {"message"}}, else the raw text."""
    text = body.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        return text[:500]
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(error, dict):
        return str(error.get("message") or error)[:500]
    return str(error)[:500]


class Chat:
    """One endpoint and model. Safe to share between threads: each call is independent."""

    def __init__(self, base_url: str, model: str, api_key: str, *, timeout_s: float = 600, max_retries: int = 6,
                 backoff_s: float = 1.0, max_backoff_s: float = 60.0, stop: Optional[threading.Event] = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout_s = model, api_key, timeout_s
        self.max_retries, self.backoff_s, self.max_backoff_s = max_retries, backoff_s, max_backoff_s
        self.stop = stop or threading.Event()

    def complete(self, messages: list[dict], tools: Optional[list[dict]] = None,
                 on_retry: Callable[[Retry], None] = lambda retry: None) -> dict:
        """The endpoint's chat completion (parsed JSON, with at least one choice) for these messages."""
        body = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        data = json.dumps(body).encode()
        for attempt in range(self.max_retries + 1):
            if self.stop.is_set():
                raise Interrupted()
            try:
                return self._post(data)
            except _Failure as failure:
                described = f"HTTP {failure.status}: {failure}" if failure.status else str(failure)
                if not failure.transient:
                    raise ChatError(f"{self.url} answered {described} (permanent; not retried)", failure.status)
                if attempt == self.max_retries:
                    raise ChatError(f"{self.url} failed {attempt + 1} times; the last: {described} "
                                    f"(--max-retries {self.max_retries})", failure.status)
                wait = self._wait(attempt, failure.retry_after)
                on_retry(Retry(attempt + 1, str(failure), failure.status, wait))
                if self.stop.wait(wait):
                    raise Interrupted()
        raise AssertionError("unreachable")

    def _wait(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return min(retry_after, RETRY_AFTER_CAP_S)
        return random.uniform(0, min(self.max_backoff_s, self.backoff_s * 2 ** attempt))  # full jitter

    def _post(self, data: bytes) -> dict:
        request = urllib.request.Request(self.url, data=data, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            body = error.read() if error.fp else b""
            raise _Failure(_error_text(body) or error.reason, error.code, error.code in TRANSIENT_STATUSES,
                           retry_after_seconds(error.headers)) from None
        except urllib.error.URLError as error:  # no HTTP answer: refused, reset, DNS, timeout
            reason = error.reason
            raise _Failure(f"no answer: {reason}", transient=isinstance(reason, OSError)) from None
        except (TimeoutError, ConnectionError, http.client.HTTPException, OSError) as error:
            raise _Failure(f"no complete answer: {type(error).__name__}: {error}") from None
        try:
            answer = json.loads(raw)
        except ValueError:
            raise _Failure(f"the reply is not JSON: {raw[:200]!r}") from None
        if not isinstance(answer, dict) or not answer.get("choices"):
            raise _Failure(f"the reply has no choices: {raw[:300]!r}")
        return answer
