"""An LLM agent for any OpenAI-compatible chat endpoint, using only the standard library.

Each task is a conversation through tools (OpenAI function calling): the model compiles kernels for
free (compile), spends submissions on evaluations (submit), keeps its skill up to date (keep_skill),
names its final kernel (set_final, else its fastest passing submission is graded), asks what is left
(budget) and ends the attempt (finish). An attempt ends when the model calls finish, the budget is
spent, or after --max-turns replies. --concurrency tasks run at once, each in its own thread.

Transient HTTP failures (408, 429, 500, 502, 503, 504, 529, timeouts, dropped connections) are retried
with exponential backoff and full jitter, honouring Retry-After; a permanent one (400, 401, 403, 404,
...) or one beyond --max-retries ends that task with the error, not the run. The endpoint's token usage
(prompt-cache reads and writes included, OpenAI- or Anthropic-style) and its cost at --price or
--prices are recorded with each task. Every exchange, tool call and retry is appended to
LEDGER.transcripts/<task id>.jsonl as it happens. Ctrl-C stops after the exchanges in flight and
leaves the open attempts unfinished, so that resuming the ledger plans them again.

Environment: MKB_LLM_BASE_URL (such as https://api.openai.com/v1), MKB_LLM_MODEL, MKB_LLM_API_KEY.

    python3 samples/python/llm_agent --ledger run.ledger [--problems GLOBS] [--concurrency 4] \\
        [--price input=3.0,cached=0.3,output=15.0]

Exit status: 0; 1 when an attempt ended on an error or the session cannot open; 2 for a bad command
line; 130 when interrupted.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("MKB_LIB_PATH", str(ROOT / "build" / "lib"))
