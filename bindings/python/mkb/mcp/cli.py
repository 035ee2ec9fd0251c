"""The command line of `python -m mkb.mcp`: the session's options, named as `mkb plan` and the other
`mkb` commands name them (docs/CLI.md) and mapped onto mkb.Session's keywords, and the server's own."""
from __future__ import annotations

import argparse
from typing import Any, Optional, Sequence

DESCRIPTION = """\
An MCP server over one libmkb session: an agent framework (Claude Code, Codex CLI, ...) takes the
session's tasks through its tools (next_task, compile, submit, keep_skill, set_final, budget, finish)
and reads each task's instruction, DSL guide and reference as resources (docs/MCP.md). Every option
but --ledger has the library's default; the session's options are those of `mkb plan` and of
mkb.Session (bindings/README.md)."""


def _positive(text: str) -> int:
    value = int(text, 0)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a TCP port from 1 to 65535, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m mkb.mcp", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    s = p.add_argument_group("the session (as mkb plan and mkb.Session take them)")
    s.add_argument("--ledger", required=True, metavar="FILE",
                   help="the ledger to record the run in; an existing one is resumed (docs/PROTOCOL.md)")
    s.add_argument("--problems", metavar="LIST", help="problem ids or shell globs, comma-separated")
    s.add_argument("--families", metavar="LIST", help="problem families, comma-separated")
    s.add_argument("--replicates", type=_positive, metavar="N", help="replicates of each trial (default 1)")
    s.add_argument("--model", metavar="M", help="the model's name, as the ledger records it")
    s.add_argument("--dsl-a", metavar="A", help="the pair's first DSL (`mkb dsls` lists them); needs --dsl-b")
    s.add_argument("--dsl-b", metavar="B", help="the pair's second DSL; needs --dsl-a")
    s.add_argument("--trials", metavar="GLOBS",
                   help="shell globs over trial ids <problem>/<dsl>/<arm>/r<replicate>, comma-separated")
    s.add_argument("--directions", metavar="LIST", help="a_to_b, b_to_a or both, comma-separated")
    s.add_argument("--shard", metavar="I/N", help="serve only shard I of N (from 0), with its own ledger (docs/SCALING.md)")
    s.add_argument("--suite", metavar="DIR", help="the suite folder (default: the built-in suite)")
    s.add_argument("--rerun-stale", action="store_true", help="plan stale trials again")
    s.add_argument("--gpus", metavar="LIST", help='the GPUs to use, as ordinals: "0,2" (default: all)')
    s.add_argument("--gpu-lock-dir", metavar="DIR", help="the host's GPU lock folder (docs/CONTRACT.md, Shared GPUs)")
    s.add_argument("--compile-only", action="store_true",
                   help="compile and check plans only; run nothing on a GPU (machines without one)")
    s.add_argument("--target-arch", metavar="ARCH", help="what a compile-only session compiles for, such as sm_90a")
    s.add_argument("--no-sandbox", action="store_true",
                   help="run Python DSL submissions unconfined (docs/DSLS.md, The sandbox)")
    s.add_argument("--budget-seconds", type=_positive, metavar="N", help="wall clock per task (default 2400)")
    s.add_argument("--budget-submissions", type=_positive, metavar="N",
                   help="counted submissions per task (default 10)")
    s.add_argument("--budget-source-bytes", type=_positive, metavar="N",
                   help="bytes per submission (default 300000)")
    s.add_argument("--skill-max-bytes", type=_positive, metavar="N", help="bytes of skill (default 65536)")
    s.add_argument("--seed", type=_positive, metavar="S", help="the session's seed, decimal or 0x hex "
                   "(default: one from the OS)")
    s.add_argument("--worker", metavar="FILE", help="the mkb-worker to use (default: the one beside the library)")
    s.add_argument("--cache-dir", metavar="DIR", help="the compile cache folder")
    s.add_argument("--python", metavar="FILE",
                   help="the Python DSL frontends' interpreter (default: MKB_PYTHON, else this one)")
    t = p.add_argument_group("the server")
    t.add_argument("--http", type=_port, metavar="PORT",
                   help="serve the streamable HTTP transport on PORT (path /mcp) instead of stdio")
    t.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                   help="the address --http listens on (default 127.0.0.1: this machine only)")
    t.add_argument("--max-open-tasks", type=_positive, default=1, metavar="N",
                   help="how many tasks may be open at once (default 1: finish one before taking the next)")
    return p


def parse(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = parser()
    args = p.parse_args(argv)
    if (args.dsl_a is None) != (args.dsl_b is None):
        p.error("--dsl-a and --dsl-b name the pair together: give both or neither")
    if args.host != "127.0.0.1" and args.http is None:
        p.error("--host only applies with --http")
    return args


def session_options(args: argparse.Namespace) -> dict[str, Any]:
    """mkb.Session's keywords from the parsed command line."""
    return dict(ledger_path=args.ledger, problems=args.problems, families=args.families,
                replicates=args.replicates, model=args.model, dsl_a=args.dsl_a, dsl_b=args.dsl_b,
                trials=args.trials, directions=args.directions, shard=args.shard, suite_path=args.suite,
                rerun_stale=args.rerun_stale, gpus=args.gpus, gpu_lock_dir=args.gpu_lock_dir,
                compile_only=args.compile_only, target_arch=args.target_arch, no_sandbox=args.no_sandbox,
                budget_seconds=args.budget_seconds, budget_submissions=args.budget_submissions,
                budget_source_bytes=args.budget_source_bytes, skill_max_bytes=args.skill_max_bytes,
                seed=args.seed, worker_path=args.worker, cache_dir=args.cache_dir, python=args.python)
