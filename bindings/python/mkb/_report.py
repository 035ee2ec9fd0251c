"""Report: the evaluation of one submission, copied out of its mkb_report."""
from __future__ import annotations

import ctypes
import json
import math
from typing import Any

from ._enums import Verdict
from ._native import lib


class Report:
    """The evaluation of one submission (mkb_report), copied at creation; immutable.

    `verdict` is a Verdict (prints by name), `message` the feedback for the agent, `time_us`,
    `baseline_us` and `speedup` NaN where nothing was timed, `json` the library's full record."""

    def __init__(self, handle: ctypes.c_void_p) -> None:
        try:
            self.verdict = Verdict(lib.mkb_report_verdict(handle))
            self.verdict_name: str = lib.mkb_verdict_name(self.verdict).decode()
            self.counted = bool(lib.mkb_report_counted(handle))
            self.final = bool(lib.mkb_report_final(handle))
            self.time_us: float = lib.mkb_report_time_us(handle)
            self.baseline_us: float = lib.mkb_report_baseline_us(handle)
            self.speedup: float = lib.mkb_report_speedup(handle)
            # eager PyTorch's time on the evaluation's GPU (the original's denominator); NaN when none is recorded
            self.eager_us: float = lib.mkb_report_eager_us(handle)
            self.speedup_vs_eager: float = lib.mkb_report_speedup_vs_eager(handle)
            self.submission: int = lib.mkb_report_submission(handle)
            self.submissions_left: int = lib.mkb_report_submissions_left(handle)
            self.seconds_left: float = lib.mkb_report_seconds_left(handle)
            self.message: str = lib.mkb_report_message(handle).decode("utf-8", "replace")
            self._json = lib.mkb_report_json(handle).decode("utf-8", "replace")
        finally:
            lib.mkb_report_free(handle)  # everything is copied: the handle is not needed any longer

    @property
    def json(self) -> dict[str, Any]:
        """The report as the library's JSON object, parsed."""
        return json.loads(self._json)

    @property
    def passed(self) -> bool:
        """Whether the verdict is PASSED."""
        return self.verdict == Verdict.PASSED

    def __repr__(self) -> str:
        timing = f", {self.speedup:.3f}x" if not math.isnan(self.speedup) else ""
        return f"Report({self.verdict.name}{timing})"
