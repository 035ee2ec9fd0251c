"""The command line: options, the session, and the run's threads (the library is loaded only after
the options are read, so that --help works without a build)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from . import __doc__ as DESCRIPTION
from .chat import Chat
from .usage import Prices


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(kind):
    def parse(text: str):
        value = kind(text)
        if value < 0:
            raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
        return value
    return parse


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="llm_agent", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ledger", required=True, type=Path, metavar="FILE",
                   help="the run's ledger (created, or resumed); transcripts go to LEDGER.transcripts/")
    run = p.add_argument_group("the session (include/mkb.h, mkb_open_options)")
    run.add_argument("--problems", metavar="IDS", help="comma-separated problem ids or globs (default: the suite)")
    run.add_argument("--families", metavar="NAMES", help="comma-separated families (default: all but extra)")
    run.add_argument("--dsl-a", metavar="DSL", help="first DSL of the pair (default cute-dsl)")
    run.add_argument("--dsl-b", metavar="DSL", help="second DSL of the pair (default tirx)")
    run.add_argument("--trials", metavar="GLOBS", help="comma-separated globs over trial ids <problem>/<dsl>/<arm>/r<n> (default: all)")
    run.add_argument("--shard", metavar="I/N", help="run only shard I of N (from 0), with its own ledger (docs/SCALING.md)")
    run.add_argument("--replicates", type=_positive, metavar="N", help="attempts per problem and arm (default 1)")
    run.add_argument("--budget-submissions", type=_positive, metavar="N", help="submissions per attempt (default 10)")
    run.add_argument("--budget-seconds", type=_positive, metavar="S", help="wall-clock seconds per attempt (default 2400)")
    run.add_argument("--compile-only", action="store_true", help="never run kernels (no GPU): compile and check only")
    run.add_argument("--worker", metavar="PATH", help="the mkb-worker executable (tests pass the test double)")
    agent = p.add_argument_group("the agent")
    agent.add_argument("--concurrency", type=_positive, metavar="N", default=1, help="tasks worked on at once (default 1)")
    agent.add_argument("--max-turns", type=_positive, metavar="N", default=40, help="model replies per attempt at most (default 40)")
    http = p.add_argument_group("the chat endpoint")
    http.add_argument("--max-retries", type=_non_negative(int), metavar="N", default=6,
                      help="retries of a transient failure before the task ends on it (default 6)")
    http.add_argument("--backoff", type=_non_negative(float), metavar="S", default=1.0,
                      help="first backoff in seconds, doubled per retry, with full jitter (default 1)")
    http.add_argument("--max-backoff", type=_non_negative(float), metavar="S", default=60.0,
                      help="longest backoff in seconds; Retry-After is honoured beyond it, up to 900 s (default 60)")
    http.add_argument("--timeout", type=_non_negative(float), metavar="S", default=600.0,
                      help="seconds to wait for one reply (default 600)")
    prices = http.add_mutually_exclusive_group()
    prices.add_argument("--price", metavar="K=V,...", help="dollars per million tokens: input=3.0,cached=0.3,output=15.0 "
                        "(cached and cache_write default to input)")
    prices.add_argument("--prices", type=Path, metavar="FILE", help="a JSON file of such prices keyed by model")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    base_url, model = os.environ.get("MKB_LLM_BASE_URL"), os.environ.get("MKB_LLM_MODEL")
    if not base_url or not model:
        parser().error("set MKB_LLM_BASE_URL (such as https://api.openai.com/v1) and MKB_LLM_MODEL")
    try:
        prices = Prices.parse(args.price) if args.price else Prices.from_file(args.prices, model) if args.prices else None
    except ValueError as error:
        parser().error(str(error))
    if prices is None:
        print("no --price or --prices: costs are recorded as 0", file=sys.stderr)
    import mkb  # noqa: PLC0415 (after the options: see the module's docstring)

    from .run import Run, execute

    chat = Chat(base_url, model, os.environ.get("MKB_LLM_API_KEY", ""), timeout_s=args.timeout,
                max_retries=args.max_retries, backoff_s=args.backoff, max_backoff_s=args.max_backoff)
    options = dict(ledger_path=args.ledger, model=model, problems=args.problems, families=args.families,
                   dsl_a=args.dsl_a, dsl_b=args.dsl_b, replicates=args.replicates,
                   budget_submissions=args.budget_submissions, budget_seconds=args.budget_seconds,
                   compile_only=args.compile_only, trials=args.trials, worker_path=args.worker,
                   shard=args.shard)
    try:
        # The trials still to run (a resumed ledger holds the others), for the progress lines on stderr.
        to_run = [t for t in mkb.plan(**options)["trials"] if t["state"] not in ("done", "skipped")]
        session = mkb.Session(**options)
    except (mkb.MkbError, ValueError) as error:  # ValueError: a --shard that is not I/N
        print(f"cannot open the session: {error}", file=sys.stderr)
        return 1
    run = Run(session, chat, args, prices, mkb.Progress(len(to_run), live=False))
    interrupted = execute(run, args.concurrency)
    print(mkb.score_ledgers([args.ledger], table=True))
    failed = [outcome for outcome in run.outcomes if outcome.error]
    if failed:
        print(f"{len(failed)} of {len(run.outcomes)} attempts ended on an error (see above and the transcripts)",
              file=sys.stderr)
    return 130 if interrupted else 1 if failed else 0
