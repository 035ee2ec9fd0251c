"""Progress of long work, for agents and scripts: "[k/N] <what> (<elapsed> s, about <left> left)" on a
stream (stderr by default), the time left estimated from the mean of the steps done so far. On a
terminal it is one live line redrawn in place; otherwise a line per step, so logs stay readable."""
from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class Progress:
    """Progress over `total` steps: call step(what) as each begins and end() when all are done."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, live: Optional[bool] = None) -> None:
        """live: one line redrawn in place; by default when the stream is a terminal. Work that prints
        from several threads passes False, so that a line per step stays readable."""
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)()) if live is None else live
        self.done = 0
        self.start = time.monotonic()
        self.step_start = self.start

    def time_left(self, now: float) -> str:
        """", about N s left" from the mean of the steps done so far; "" before one has ended."""
        ended = self.done - 1  # the steps before the one running
        if ended <= 0 or self.done > self.total:
            return ""
        left = max((self.step_start - self.start) / ended * (self.total - ended) - (now - self.step_start), 0.0)
        return f", about {left:.0f} s left" if left < 90 else f", about {left / 60:.0f} min left"

    def step(self, what: str) -> None:
        """Step k+1 of total begins."""
        self.done += 1
        now = time.monotonic()
        self.step_start = now
        line = f"[{self.done}/{self.total}] {what} ({now - self.start:.1f} s{self.time_left(now)})"
        self.stream.write(f"\r\033[K{line}" if self.live else line + "\n")
        self.stream.flush()

    def end(self) -> None:
        """Erases the live line, so that what is printed next starts clean."""
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
