#!/usr/bin/env python3
"""The replay agent: plays the suite's stored solutions through the full four-arm protocol.

Solo attempts first submit the problem's unfused baseline as a first draft, then the stored solution,
and write a skill from what the feedback said; skill arms read the skill they were given and submit
the stored solution. At the end the session's scores are printed. Without a GPU the library runs
compile-only and this says what it could not do.

    python3 samples/python/replay_agent.py [--ledger FILE] [--fresh] [--problems GLOBS] [--dsl-a DSL --dsl-b DSL]
                                           [--shard I/N]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("MKB_LIB_PATH", str(ROOT / "build" / "lib"))

import mkb  # noqa: E402


def stored_solutions(problem_folder: Path) -> dict[str, Path]:
    """DSL name -> the stored solution's file, as the problem's spec lists them."""
    spec = json.loads((problem_folder / "spec.json").read_text())
    return {s["dsl"]: problem_folder / s["file"] for s in spec.get("solutions", [])}


def stored_solution(task: mkb.Task) -> str | None:
    found = stored_solutions(ROOT / "problems" / task.family / task.problem).get(task.dsl)
    return found.read_text() if found else None


def replayable(dsls: tuple[str, str]) -> tuple[list[str], list[str]]:
    """The problems a default session selects with a stored solution in both DSLs, and the others."""
    have, lack = [], []
    for spec in sorted((ROOT / "problems").glob("*/*/spec.json")):
        if any(part.startswith("_") for part in spec.parts[-3:-1]):
            continue  # set aside, no part of the suite (problems/_template)
        if spec.parts[-3] == "extra":
            continue  # not the original's: a default session leaves it out (docs/PROBLEMS.md, Families)
        (have if set(dsls) <= set(stored_solutions(spec.parent)) else lack).append(spec.parent.name)
    return have, lack


def describe(report: mkb.Report) -> str:
    if report.verdict == mkb.Verdict.PASSED:
        return f"{report.time_us:.1f} us, {report.speedup:.2f}x the unfused baseline"
    return report.verdict.name.lower().replace("_", " ")


def play(task: mkb.Task) -> str:
    solution = stored_solution(task)
    if solution is None:
        return f"{task.id}: no stored solution in {task.dsl}; ending without a kernel"
    solo = task.arm in (mkb.Arm.SOLO_A, mkb.Arm.SOLO_B)
    lines = []
    if solo:
        draft = (ROOT / "problems" / task.family / task.problem / "baseline.cu").read_text()
        first = task.submit(draft) if task.dsl == "cuda" else None
        best = task.submit(solution)
        notes = [f"Problem {task.problem}."]
        if first is not None:
            notes.append(f"An unfused first draft (one kernel per operation) gave: {describe(first)}.")
        notes.append(f"Fusing everything into one pass over the data gave: {describe(best)}.")
        notes.append("What mattered: keep each row in registers between the reduction and the output, "
                     "use 16-byte loads and stores, and respect every rounding point of the reference.")
        task.submit_skill(" ".join(notes))
        lines.append(f"{task.id}: draft {describe(first) if first else '-'}; solution {describe(best)}")
    else:
        skill = (task.source_skill or "").splitlines()[-1] if task.source_skill else ""
        report = task.submit(solution)
        lines.append(f"{task.id}: with the skill ({skill[:60]}...) {describe(report)}")
    final = task.finalize()
    lines.append(f"    final evaluation: {describe(final)}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", default=str(ROOT / "build" / "demo.ledger"))
    parser.add_argument("--fresh", action="store_true", help="start a new ledger instead of resuming it")
    parser.add_argument("--problems", default=None)
    parser.add_argument("--dsl-a", default=None)
    parser.add_argument("--dsl-b", default=None)
    parser.add_argument("--model", default="replay")
    parser.add_argument("--worker", default=None, help="the mkb-worker to use (tests pass the test double)")
    parser.add_argument("--shard", metavar="I/N", default=None,
                        help="play only shard I of N (from 0), with its own ledger (docs/SCALING.md)")
    args = parser.parse_args()
    if args.fresh and os.path.exists(args.ledger):
        os.remove(args.ledger)
    print(f"libmkb {mkb.version()}: replaying stored solutions; ledger {args.ledger}")
    # A pair that cannot run here would only be refused submission after submission and score zeros.
    dsls = mkb.list_dsls(dsl_a=args.dsl_a, dsl_b=args.dsl_b)
    if not dsls.pair_usable:
        print(f"cannot run the DSL pair {dsls.pair[0]} and {dsls.pair[1]} here:", file=sys.stderr)
        for name in dict.fromkeys(dsls.pair):
            if not dsls[name].usable:
                print(f"  {name}: {dsls[name].detail}", file=sys.stderr)
        print(f"Run scripts/setup (it installs the DSLs' packages into .venv), or name an interpreter that "
              f"has them with MKB_PYTHON; `mkb dsls` lists what can run. This ran {dsls.python}.", file=sys.stderr)
        return 3
    problems = args.problems
    if problems is None:
        pair = dsls.pair
        have, lack = replayable(pair)
        problems = have
        print(f"{len(have)} problems have stored solutions in both {pair[0]} and {pair[1]}; "
              f"{len(lack)} have none yet in one of them and are left out")
    options = dict(ledger_path=args.ledger, model=args.model, problems=problems, dsl_a=args.dsl_a, dsl_b=args.dsl_b,
                   worker_path=args.worker, shard=args.shard)
    # The trials still to run (a resumed ledger holds the others), for the progress line on stderr.
    to_run = [t for t in mkb.plan(**options)["trials"] if t["state"] not in ("done", "skipped")]
    progress = mkb.Progress(len(to_run))
    with mkb.Session(**options) as session:
        compile_only = False
        for task in session.tasks(wait_ms=500):
            with task:
                progress.step(task.id)
                text = play(task)
                compile_only |= "compiled" in text
                progress.end()
                print(text, flush=True)
        print()
        print(session.score(table=True))
        if compile_only:
            print("No GPU here: kernels were compiled and their launch plans checked, but nothing ran, so no\n"
                  "time, speedup or correctness was measured and every attempt scores as not passed.\n"
                  "Run this on a machine with an NVIDIA GPU for the real benchmark.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
